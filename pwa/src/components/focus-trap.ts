import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';

const focusableSelector = [
  'a[href]',
  'button:not([disabled])',
  'input:not([disabled]):not([type="hidden"])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  '[tabindex]:not([tabindex="-1"])',
  '[contenteditable="true"]',
].join(',');

/** The elements Tab reaches inside `root`, in order: enabled, shown and not taken out of the tab order. */
function tabbableIn(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(focusableSelector)).filter(
    (element) => element.tabIndex >= 0 && element.getClientRects().length > 0 && !element.closest('[inert]'),
  );
}

/** The open traps, innermost last: only the innermost one handles Tab and Escape. */
const openTraps: object[] = [];

/**
 * Keeps keyboard focus inside `container` while it is mounted: it takes focus on opening, Tab after the
 * last control goes to the first and Shift+Tab before the first to the last, focus that lands outside
 * comes back, Escape calls `onEscape`, and on closing focus returns to the control that had it before.
 */
export function useFocusTrap(container: RefObject<HTMLElement | null>, onEscape: () => void): void {
  // The latest callback, so a caller's inline function never re-runs the effect (and moves focus) while typing.
  const onEscapeRef = useRef(onEscape);
  useEffect(() => {
    onEscapeRef.current = onEscape;
  }, [onEscape]);

  // Before the browser paints the container, not after: a container shown by a render outside any event (data
  // that arrived) would otherwise be on screen, without focus and deaf to Escape, until React ran passive effects.
  useLayoutEffect(() => {
    const root = container.current;
    if (!root) return undefined;
    const trap = {};
    openTraps.push(trap);
    const innermost = () => openTraps.at(-1) === trap;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    root.focus();

    const handleKeyDown = (event: KeyboardEvent) => {
      if (!innermost() || event.defaultPrevented) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        onEscapeRef.current();
        return;
      }
      if (event.key !== 'Tab') return;
      const tabbable = tabbableIn(root);
      const first = tabbable[0];
      const last = tabbable.at(-1);
      if (!first || !last) {
        event.preventDefault();
        root.focus();
        return;
      }
      const current = document.activeElement;
      const inside = current instanceof Node && root.contains(current);
      if (event.shiftKey && (!inside || current === first || current === root)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (!inside || current === last)) {
        event.preventDefault();
        first.focus();
      }
    };
    // Focus moved outside by other means (a click on the page behind, a script) comes back in.
    const handleFocusIn = (event: FocusEvent) => {
      if (!innermost()) return;
      if (event.target instanceof Node && !root.contains(event.target)) root.focus();
    };
    document.addEventListener('keydown', handleKeyDown);
    document.addEventListener('focusin', handleFocusIn);
    return () => {
      document.removeEventListener('keydown', handleKeyDown);
      document.removeEventListener('focusin', handleFocusIn);
      openTraps.splice(openTraps.indexOf(trap), 1);
      if (previous?.isConnected) previous.focus();
    };
  }, [container]);
}
