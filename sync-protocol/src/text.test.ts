import { describe, expect, test } from 'vitest';
import { containsNul, stripInvisible } from './text';
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
    expect(containsNul('a\u0000b')).toBe(true);
    expect(containsNul({ args: { items: ['ok', 'bad\u0000'] } })).toBe(true);
    expect(containsNul({ 'key\u0000': 1 })).toBe(true);
    expect(containsNul({ text: 'fine', n: 1, none: null, list: [true] })).toBe(false);
    expect(containsNul(undefined)).toBe(false);
  });
});
