import { describe, expect, test } from 'vitest';
import {
  highlightParts,
  matchesQuery,
  matchesTerms,
  searchQuerySchema,
  searchWords,
  snippetParts,
  taskMatch,
} from './search';

describe('how search reads text', () => {
  test('marks the matched words, whatever their case or accents', () => {
    expect(highlightParts('Budget: the BUDGET is Résumé-ready', matchesTerms(new Set(['budget', 'resume'])))).toEqual([
      { text: 'Budget', match: true },
      { text: ': the ', match: false },
      { text: 'BUDGET', match: true },
      { text: ' is ', match: false },
      { text: 'Résumé', match: true },
      { text: '-ready', match: false },
    ]);
  });

  test('shows the passage of a long text around its first match, cut at whole words', () => {
    const text = `${'lorem ipsum '.repeat(20)}the budget line ${'dolor sit '.repeat(20)}`;
    const parts = snippetParts(text, matchesTerms(new Set(['budget'])));
    const shown = parts.map((part) => part.text).join('');
    expect(shown.startsWith('…')).toBe(true);
    expect(shown.endsWith('…')).toBe(true);
    expect(shown.length).toBeLessThanOrEqual(145);
    expect(parts.filter((part) => part.match)).toEqual([{ text: 'budget', match: true }]);
    const words = new Set(['lorem', 'ipsum', 'the', 'budget', 'line', 'dolor', 'sit']);
    expect(
      shown
        .slice(1, -1)
        .split(' ')
        .every((word) => words.has(word)),
    ).toBe(true);
  });

  test('a query is its words, folded as the index folds them; punctuation alone is no query', () => {
    expect(searchWords('  Résumé,  budget-2026 résumé!')).toEqual(['resume', 'budget', '2026']);
    expect(searchQuerySchema.safeParse({ q: '?! …' }).success).toBe(false);
    expect(searchQuerySchema.safeParse({ q: 'budget', before: '12' }).success).toBe(false);
    expect(searchQuerySchema.parse({ q: ' budget ' })).toEqual({ q: 'budget', limit: 20 });
  });

  test('the last word of a server query also matches as a prefix, from two letters on', () => {
    const matches = matchesQuery(['budget', 're']);
    expect(['budget', 're', 'review', 'budgets', 'r'].map(matches)).toEqual([true, true, true, false, false]);
    expect(matchesQuery(['r'])('review')).toBe(false);
  });

  test('a task shows the description that matched, else the first comment that did, with its author', () => {
    const matches = matchesTerms(new Set(['budget']));
    const comments = [
      { text: 'No words here', userName: 'Ann' },
      { text: 'The budget is late', userName: 'Ben' },
    ];
    expect(taskMatch({ title: 'Budget', description: 'A budget line', comments }, matches)).toMatchObject({
      detail: [{ text: 'A ' }, { text: 'budget', match: true }, { text: ' line' }],
      commentBy: null,
    });
    expect(taskMatch({ title: 'Plan', description: 'Nothing', comments }, matches).commentBy).toBe('Ben');
    expect(taskMatch({ title: 'Budget', description: '', comments: [] }, matches)).toMatchObject({
      title: [{ text: 'Budget', match: true }],
      detail: null,
      commentBy: null,
    });
  });
});
