import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { LongPress, longPressMs, moveTolerancePx } from './long-press';

describe('LongPress', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('a finger held still for the press time fires once, and the tap it would make is dropped', () => {
    const fired = vi.fn();
    const press = new LongPress(fired);
    press.start(100, 200);
    vi.advanceTimersByTime(longPressMs - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
    expect(press.end()).toBe(true);
    vi.advanceTimersByTime(longPressMs * 2);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  test('a short tap does not fire and keeps its click', () => {
    const fired = vi.fn();
    const press = new LongPress(fired);
    press.start(100, 200);
    vi.advanceTimersByTime(longPressMs / 2);
    expect(press.end()).toBe(false);
    vi.advanceTimersByTime(longPressMs);
    expect(fired).not.toHaveBeenCalled();
  });

  test('a finger that moves beyond the tolerance is scrolling: no press; a small wobble is still a press', () => {
    const fired = vi.fn();
    const press = new LongPress(fired);
    press.start(100, 200);
    press.move(100 + moveTolerancePx - 2, 201);
    vi.advanceTimersByTime(longPressMs);
    expect(fired).toHaveBeenCalledTimes(1);
    press.end();

    press.start(100, 200);
    press.move(100, 200 + moveTolerancePx + 1);
    vi.advanceTimersByTime(longPressMs);
    expect(fired).toHaveBeenCalledTimes(1);
    expect(press.end()).toBe(false);
  });

  test('two fingers (a pinch) are no press', () => {
    const fired = vi.fn();
    const press = new LongPress(fired);
    press.start(100, 200, 2);
    vi.advanceTimersByTime(longPressMs);
    expect(fired).not.toHaveBeenCalled();
  });

  test("the browser's long-press menu during a press fires it at once and is suppressed; a mouse's menu is not", () => {
    const fired = vi.fn();
    const press = new LongPress(fired);
    expect(press.contextMenu()).toBe(false);
    press.start(100, 200);
    vi.advanceTimersByTime(longPressMs / 2);
    expect(press.contextMenu()).toBe(true);
    expect(fired).toHaveBeenCalledTimes(1);
    expect(press.end()).toBe(true);
    expect(press.contextMenu()).toBe(false);
    expect(fired).toHaveBeenCalledTimes(1);
  });
});
