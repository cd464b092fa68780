import { describe, expect, test } from 'vitest';
import { backoffDelay } from './backoff';

describe('backoffDelay', () => {
  test('starts at 1 s and doubles, capped at 60 s, without jitter in the middle of the spread', () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((attempt) => backoffDelay(attempt, middle))).toEqual([
      1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000,
    ]);
  });

  test('spreads each delay by up to half either way, and never past the cap', () => {
    expect(backoffDelay(1, () => 0)).toBe(500);
    expect(backoffDelay(1, () => 1)).toBe(1500);
    expect(backoffDelay(3, () => 0)).toBe(2000);
    expect(backoffDelay(30, () => 1)).toBe(60000);
  });
});
