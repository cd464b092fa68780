import { describe, expect, test } from 'vitest';
import { inputProblem, nestingTooDeepMessage, nulCharacterMessage, stripInvisible } from './text';
import { personNameSchema } from './commands/auth';

describe('names', () => {
  test('bidirectional controls and zero-width characters are stripped; other text stays as typed', () => {
    expect(stripInvisible('\u202EAlice\u200B \u2067Smith\u2069\uFEFF')).toBe('Alice Smith');
    expect(stripInvisible('Zoë Ångström-李')).toBe('Zoë Ångström-李');
  });

  test('a name is checked after stripping: only invisible characters make no name', () => {
    const name = personNameSchema('Name required');
    expect(name.parse(' \u200DDana\u200C ')).toBe('Dana');
    expect(name.safeParse('\u200B\u202E').error?.issues[0]?.message).toBe('Name required');
  });
});

describe('NUL characters', () => {
  test('are found in strings, nested objects and arrays, and object keys', () => {
    expect(inputProblem('a\u0000b')).toBe(nulCharacterMessage);
    expect(inputProblem({ args: { items: ['ok', 'bad\u0000'] } })).toBe(nulCharacterMessage);
    expect(inputProblem({ 'key\u0000': 1 })).toBe(nulCharacterMessage);
    expect(inputProblem({ text: 'fine', n: 1, none: null, list: [true] })).toBeNull();
    expect(inputProblem(undefined)).toBeNull();
  });
});

describe('nesting', () => {
  const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));

  test('up to the limit passes; one level more is refused', () => {
    expect(inputProblem(nested(32))).toBeNull();
    expect(inputProblem(nested(33))).toBe(nestingTooDeepMessage);
    expect(inputProblem({ a: { b: nested(30) } })).toBeNull();
    expect(inputProblem({ a: { b: nested(31) } })).toBe(nestingTooDeepMessage);
  });

  test('a hundred thousand levels are refused without overflowing the stack', () => {
    expect(inputProblem(nested(100_000))).toBe(nestingTooDeepMessage);
    expect(inputProblem({ args: nested(100_000) }, Number.MAX_SAFE_INTEGER)).toBeNull();
  });
});
