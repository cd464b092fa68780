import { describe, expect, test } from 'vitest';
import {
  findMentions,
  firstMentionOf,
  mentionCandidates,
  mentionPreview,
  mentionQueryAt,
  mentionedIds,
} from './mentions';

const ann = { id: 'ann', name: 'Ann' };
const annLee = { id: 'ann-lee', name: 'Ann Lee' };
const bob = { id: 'bob', name: 'Bob Smith' };
const zoe = { id: 'zoe', name: 'Zoë Ångström' };
const members = [ann, annLee, bob, zoe];

describe('findMentions', () => {
  test('the longest member name wins', () => {
    expect(findMentions('hi @Ann Lee, and @Ann too', members)).toEqual([
      { start: 3, end: 11, userIds: ['ann-lee'] },
      { start: 17, end: 21, userIds: ['ann'] },
    ]);
  });

  test('names match ignoring case, accented letters included', () => {
    expect(mentionedIds('@bob smith and @ZOË ÅNGSTRÖM', members)).toEqual(['bob', 'zoe']);
  });

  test('punctuation may follow a name, a letter or digit may not', () => {
    expect(mentionedIds('@Bob Smith, @Bob Smith. @Bob Smith! (@Bob Smith) @Bob Smith’s', members)).toEqual(['bob']);
    expect(findMentions('@Bob Smith!', members)).toEqual([{ start: 0, end: 10, userIds: ['bob'] }]);
    expect(mentionedIds('@Bob Smithers', members)).toEqual([]);
    expect(mentionedIds('@Bob Smith2', members)).toEqual([]);
    // "Ann Lee" does not end there, so the shorter "Ann" is the mention.
    expect(findMentions('@Ann Leeds', members)).toEqual([{ start: 0, end: 4, userIds: ['ann'] }]);
  });

  test('names of people who are not members are plain text', () => {
    expect(findMentions('@Carol Jones and @Bobby', members)).toEqual([]);
    expect(mentionedIds('@Bob Smith', [ann])).toEqual([]);
  });

  test('an @ inside a word is no mention, and each person is named once', () => {
    expect(mentionedIds('mail bob@Bob Smith', members)).toEqual([]);
    expect(mentionedIds('@Ann @Ann @ann', members)).toEqual(['ann']);
    expect(mentionedIds('@@Ann', members)).toEqual(['ann']);
  });

  test('two members with the same name are both mentioned', () => {
    expect(mentionedIds('@Bob Smith', [bob, { id: 'bob-2', name: 'bob smith' }])).toEqual(['bob', 'bob-2']);
  });
});

describe('mentionCandidates', () => {
  test('lists what could be a name after each @, so every mention is among them', () => {
    const text = 'ping @Bob Smith, and @Zoë Ångström! mail@Ann';
    const candidates = mentionCandidates(text);
    expect(candidates).toContain('bob smith');
    expect(candidates).toContain('bob');
    expect(candidates).toContain('zoë ångström');
    expect(candidates).not.toContain('ann');
    expect(candidates.every((candidate) => candidate.trim() === candidate)).toBe(true);
  });

  test('folds case the way it is told (SQLite folds ASCII letters only)', () => {
    const ascii = (name: string) => name.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
    expect(mentionCandidates('@ZOË Å', ascii)).toEqual(['zoË', 'zoË Å']);
  });

  test('stay bounded by the longest name a member can have', () => {
    const candidates = mentionCandidates(`@${'a '.repeat(400)}`);
    expect(Math.max(...candidates.map((candidate) => candidate.length))).toBeLessThanOrEqual(100);
  });
});

describe('mentionQueryAt', () => {
  test('is what follows the @ before the caret, spaces included', () => {
    expect(mentionQueryAt('hello @Ann L', 12)).toEqual({ at: 6, query: 'Ann L' });
    expect(mentionQueryAt('@', 1)).toEqual({ at: 0, query: '' });
  });

  test('is none without an @ that starts a mention on the line', () => {
    expect(mentionQueryAt('mail@Ann', 8)).toBeNull();
    expect(mentionQueryAt('@Ann\nhello', 10)).toBeNull();
    expect(mentionQueryAt('@ Ann', 5)).toBeNull();
    expect(mentionQueryAt('plain text', 10)).toBeNull();
  });
});

describe('mentionPreview', () => {
  const preview = (text: string, userId = 'bob') => {
    const mention = firstMentionOf(text, members, userId);
    if (!mention) throw new Error(`no mention of ${userId} in ${text}`);
    return mentionPreview(text, mention, 50);
  };

  test('a short text is shown whole, its whitespace runs as one space', () => {
    expect(preview('hey  @Bob Smith,\nlook')).toBe('hey @Bob Smith, look');
  });

  test('a long text shows the words around the mention, with an ellipsis where cut, within the cut of 50', () => {
    const text =
      'Quarterly planning notes for the whole team are in the shared folder. @Bob Smith please review the budget section before Friday, thanks a lot.';
    const shown = preview(text);
    expect(shown).toBe('...the shared folder. @Bob Smith please review the...');
    expect(shown.replace(/^\.\.\.|\.\.\.$/g, '').length).toBeLessThanOrEqual(50);
  });

  test('two mentions in messages that begin alike read apart', () => {
    const opening = 'Reminder about the release checklist for version 2.4 of the app: ';
    const first = preview(`${opening}@Bob Smith owns the database migration step.`);
    const second = preview(`${opening}@Bob Smith owns the rollback drill on Thursday.`);
    expect(first).not.toBe(second);
    expect(first).toContain('@Bob Smith owns the database');
    expect(second).toContain('@Bob Smith owns the rollback');
  });

  test('a mention near either end takes the room the other side cannot use', () => {
    const tail = ' could you look at the failing build on the main branch before lunch today';
    expect(preview(`@Bob Smith${tail}`)).toBe('@Bob Smith could you look at the failing build on...');
    expect(preview(`The failing build on the main branch needs a look today @Bob Smith`)).toBe(
      '...on the main branch needs a look today @Bob Smith',
    );
  });

  test('each person sees the window around their own first mention', () => {
    const text =
      '@Ann Lee starts the deploy, then a long pause while the caches warm up everywhere, and @Bob Smith checks the logs';
    expect(preview(text, 'ann-lee')).toMatch(/^@Ann Lee starts/);
    expect(preview(text, 'bob')).toMatch(/@Bob Smith checks the logs$/);
  });
});
