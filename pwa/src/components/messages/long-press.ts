import { useEffect, useMemo, type MouseEvent, type TouchEvent } from 'react';

/** How long a finger rests on a message before its reaction picker opens (Android's long-press time). */
export const longPressMs = 500;
/** A finger that moves further than this is scrolling the list, not pressing. */
export const moveTolerancePx = 10;

/**
 * One finger held still on an element for `holdMs` is a long press. Fed the touches by `useLongPress`; kept free of
 * the DOM so its rules can be tested on their own.
 */
export class LongPress {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private origin: { x: number; y: number } | null = null;
  private fired = false;

  constructor(
    private readonly onLongPress: () => void,
    private readonly holdMs: number = longPressMs,
  ) {}

  /** A finger went down at (x, y); a second finger is a gesture of its own and cancels. */
  start(x: number, y: number, fingers = 1): void {
    this.cancel();
    this.fired = false;
    if (fingers !== 1) return;
    this.origin = { x, y };
    this.timer = setTimeout(() => this.fire(), this.holdMs);
  }

  /** The finger moved: further than the tolerance, it scrolls, and the press is off. */
  move(x: number, y: number): void {
    if (this.origin && Math.hypot(x - this.origin.x, y - this.origin.y) > moveTolerancePx) this.cancel();
  }

  /** The finger lifted. True when the press had fired: the tap the browser would make of it is to be dropped. */
  end(): boolean {
    this.cancel();
    const fired = this.fired;
    this.fired = false;
    return fired;
  }

  /**
   * The browser's own menu is about to open. During a press, the press fires at once instead (the browser's long
   * press may come first); true when the menu is to be suppressed: only while a finger is down, never for a mouse.
   */
  contextMenu(): boolean {
    if (this.timer !== null) this.fire();
    return this.fired;
  }

  cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.origin = null;
  }

  private fire(): void {
    this.cancel();
    this.fired = true;
    this.onLongPress();
  }
}

/**
 * Touch handlers that call `onLongPress` when a finger rests on the element: a touch screen's way to a message's
 * reaction picker, beside the "Add reaction" button that keyboards and screen readers use. Once it fired, the tap
 * and the browser's text menu that the same press would make are dropped. Give it a stable `onLongPress`.
 */
export function useLongPress(onLongPress: () => void) {
  // A stable `onLongPress` keeps one press across renders (a new one would drop a press under way).
  const press = useMemo(() => new LongPress(onLongPress), [onLongPress]);
  useEffect(() => () => press.cancel(), [press]);
  return useMemo(
    () => ({
      onTouchStart: (event: TouchEvent<HTMLElement>) => {
        const touch = event.touches[0];
        if (touch) press.start(touch.clientX, touch.clientY, event.touches.length);
      },
      onTouchMove: (event: TouchEvent<HTMLElement>) => {
        const touch = event.touches[0];
        if (touch) press.move(touch.clientX, touch.clientY);
      },
      onTouchEnd: (event: TouchEvent<HTMLElement>) => {
        if (press.end()) event.preventDefault();
      },
      onTouchCancel: () => press.cancel(),
      onContextMenu: (event: MouseEvent<HTMLElement>) => {
        if (press.contextMenu()) event.preventDefault();
      },
    }),
    [press],
  );
}
