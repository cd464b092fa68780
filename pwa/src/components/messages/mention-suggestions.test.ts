import { describe, expect, test } from 'vitest';
import { suggestMentions } from './mention-suggestions';

const person = (id: string, name: string) => ({ id, name, avatar: null });
const people = [
  person('b', 'Bob Smith'),
  person('a', 'Alice Johnson'),
  person('s', 'Sam Bobbins'),
  person('c', 'Carol Davis'),
];

describe('suggestMentions', () => {
  test('offers names starting with the query first, then names with a later word starting with it', () => {
    expect(suggestMentions(people, 'bob').map((p) => p.id)).toEqual(['b', 's']);
    expect(suggestMentions(people, 'BOB S').map((p) => p.id)).toEqual(['b']);
  });

  test('an empty query offers everyone by name, up to the limit', () => {
    expect(suggestMentions(people, '').map((p) => p.id)).toEqual(['a', 'b', 'c', 's']);
    expect(suggestMentions(people, '', 2).map((p) => p.id)).toEqual(['a', 'b']);
  });

  test('nothing matches a query that no name starts with, nor a finished name followed by a space', () => {
    expect(suggestMentions(people, 'zed')).toEqual([]);
    expect(suggestMentions(people, 'Bob Smith ')).toEqual([]);
  });
});
