import { useEffect, useRef, type RefObject } from 'react';

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
export function tabbableIn(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(focusableSelector)).filter(
    (element) => element.tabIndex >= 0 && element.getClientRects().length > 0 && !element.closest('[inert]'),
  );
}

/** The open traps, innermost last: only the innermost one handles Tab and Escape. */
const openTraps: object[] = [];

interface FocusTrapOptions {
  /** Escape calls this (only for the innermost open trap). */
  onEscape: () => void;
  /** Where focus goes on opening; the container itself when absent. */
  initialFocus?: () => HTMLElement | null | undefined;
  /** Whether focus goes back to the control that had it before the trap opened, on closing. Default true. */
  restoreFocus?: boolean;
}

/**
 * Keeps keyboard focus inside `container` while it is mounted and `active`: Tab after the last control
 * goes to the first and Shift+Tab before the first to the last, focus that lands outside comes back,
 * Escape calls `onEscape`, and on closing focus returns to the control that had it before.
 */
export function useFocusTrap(
  container: RefObject<HTMLElement | null>,
  active: boolean,
  { onEscape, initialFocus, restoreFocus = true }: FocusTrapOptions,
): void {
  // The latest callbacks, so a caller's inline functions never re-run the effect (and move focus) while typing.
  const onEscapeRef = useRef(onEscape);
  const initialFocusRef = useRef(initialFocus);
  useEffect(() => {
    onEscapeRef.current = onEscape;
    initialFocusRef.current = initialFocus;
  }, [onEscape, initialFocus]);

  useEffect(() => {
    const root = container.current;
    if (!active || !root) return undefined;
    const trap = {};
    openTraps.push(trap);
    const innermost = () => openTraps.at(-1) === trap;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    (initialFocusRef.current?.() ?? root).focus();

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
      if (restoreFocus && previous?.isConnected) previous.focus();
    };
  }, [container, active, restoreFocus]);
}
