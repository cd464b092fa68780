import { describe, expect, test } from 'vitest';
import { initialsOf } from './initials';

describe('initialsOf', () => {
  test('takes the first letters of the first two words', () => {
    expect(initialsOf('Bob Smith')).toBe('BS');
    expect(initialsOf('alice  mary johnson')).toBe('AM');
    expect(initialsOf('  Maya\tManager ')).toBe('MM');
  });

  test('takes the first two letters of a one-word name', () => {
    expect(initialsOf('Bob')).toBe('BO');
    expect(initialsOf(' bo')).toBe('BO');
    expect(initialsOf('X')).toBe('X');
  });

  test('keeps a letter outside the basic plane whole, and reads "?" for a blank name', () => {
    expect(initialsOf('𝒜da Lovelace')).toBe('𝒜L');
    expect(initialsOf('Émile Zola')).toBe('ÉZ');
    expect(initialsOf('   ')).toBe('?');
  });
});
