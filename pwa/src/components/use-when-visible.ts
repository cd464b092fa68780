import { useCallback, type RefCallback } from 'react';

/**
 * A ref that calls `onVisible` whenever its element scrolls into view (also inside a scrolling list).
 * A new `onVisible` observes afresh, so an element still in view after a list has grown calls it again.
 */
export function useWhenVisible(onVisible: () => void): RefCallback<Element> {
  return useCallback(
    (element: Element | null) => {
      if (!element || typeof IntersectionObserver === 'undefined') return undefined;
      const observer = new IntersectionObserver((entries) => {
        if (entries.some((entry) => entry.isIntersecting)) onVisible();
      });
      observer.observe(element);
      return () => observer.disconnect();
    },
    [onVisible],
  );
}
