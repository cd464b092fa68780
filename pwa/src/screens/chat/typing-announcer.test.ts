import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { TypingAnnouncer } from './typing-announcer';

describe('TypingAnnouncer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const setup = () => {
    const sent: boolean[] = [];
    const announcer = new TypingAnnouncer(
      (isTyping) => sent.push(isTyping),
      () => Date.now(),
    );
    return { sent, announcer };
  };

  test('the first keystroke announces typing and later ones at most every 2 seconds', () => {
    const { sent, announcer } = setup();
    announcer.input(true);
    vi.advanceTimersByTime(1_000);
    announcer.input(true);
    vi.advanceTimersByTime(999);
    announcer.input(true);
    expect(sent).toEqual([true]);
    vi.advanceTimersByTime(1);
    announcer.input(true);
    expect(sent).toEqual([true, true]);
  });

  test('3 seconds without a keystroke announces the stop once', () => {
    const { sent, announcer } = setup();
    announcer.input(true);
    vi.advanceTimersByTime(2_999);
    expect(sent).toEqual([true]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([true, false]);
    vi.advanceTimersByTime(10_000);
    expect(sent).toEqual([true, false]);
  });

  test('sending stops at once, and the next keystroke announces again', () => {
    const { sent, announcer } = setup();
    announcer.input(true);
    announcer.stop();
    expect(sent).toEqual([true, false]);
    announcer.input(true);
    expect(sent).toEqual([true, false, true]);
  });

  test('emptying the box counts as a stop; a stop without a start sends nothing', () => {
    const { sent, announcer } = setup();
    announcer.stop();
    announcer.input(false);
    expect(sent).toEqual([]);
    announcer.input(true);
    announcer.input(false);
    expect(sent).toEqual([true, false]);
  });
});
