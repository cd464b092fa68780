import { z } from 'zod';
import { idSchema } from './ids';
import { taskStatuses } from './entities/task';

// Search, shared by the device's index (pwa/src/search) and the server's full-text search (GET /api/search): how
// text splits into words, which words a query matches, and the marked passages a result shows. Both sides split
// as SQLite FTS5's unicode61 tokenizer does (spaces and punctuation separate words, case and accents are folded),
// so a word the server matched is the word the dialog marks.

/** What separates words: spaces, line breaks and punctuation (FTS5 unicode61's separators). */
export const wordSeparator = /[\n\r\p{Z}\p{P}]+/u;

/** A word as it is indexed and searched: lower case, accents removed ("Résumé" finds "resume"). */
export function normalizeWord(word: string): string | null {
  const normalized = word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  return normalized === '' ? null : normalized;
}

/** The words of a query, normalized, in order (repeats kept out). */
export function searchWords(query: string): string[] {
  const words = query.split(wordSeparator).flatMap((word) => normalizeWord(word) ?? []);
  return [...new Set(words)];
}

/** The shortest last word searched as a prefix on the server (a one-letter prefix would match most of the index). */
export const prefixMinLength = 2;

/** Whether a (normalized) word of a text is one the query matched. */
export type WordMatch = (word: string) => boolean;

/** The words a set of matched index terms marks: exactly those. */
export const matchesTerms =
  (terms: ReadonlySet<string>): WordMatch =>
  (word) =>
    terms.has(word);

/**
 * The words a server query matches: each of its words, the last one (still being typed) also as a prefix when it has
 * at least `prefixMinLength` letters.
 */
export function matchesQuery(words: readonly string[]): WordMatch {
  const last = words.at(-1) ?? '';
  const exact = new Set(words);
  const prefix = last.length >= prefixMinLength ? last : null;
  return (word) => exact.has(word) || (prefix !== null && word.startsWith(prefix));
}

/** A piece of shown text; `match` pieces are the words the search matched (shown marked, as text, never as HTML). */
export const textPartSchema = z.object({ text: z.string(), match: z.boolean() });
export type TextPart = z.infer<typeof textPartSchema>;

/** Splits `text` into words and separators, marking the words `matches` picks. */
export function highlightParts(text: string, matches: WordMatch): TextPart[] {
  const parts: TextPart[] = [];
  const push = (piece: string, match: boolean) => {
    if (piece === '') return;
    const last = parts.at(-1);
    if (last && last.match === match) last.text += piece;
    else parts.push({ text: piece, match });
  };
  const isMatch = (word: string) => {
    const normalized = normalizeWord(word);
    return normalized !== null && matches(normalized);
  };
  const separators = new RegExp(wordSeparator.source, 'gu');
  let from = 0;
  for (const separator of text.matchAll(separators)) {
    const word = text.slice(from, separator.index);
    push(word, isMatch(word));
    push(separator[0], false);
    from = separator.index + separator[0].length;
  }
  const word = text.slice(from);
  push(word, isMatch(word));
  return parts;
}

/** Whether any word of `text` is one `matches` picks. */
export const mentionsAny = (text: string, matches: WordMatch): boolean =>
  text.split(wordSeparator).some((word) => {
    const normalized = normalizeWord(word);
    return normalized !== null && matches(normalized);
  });

/** How much of a long text is shown around its first match, in characters. */
export const snippetLength = 140;
const contextBefore = 40;

/**
 * The passage of `text` around its first matched word, at most about `snippetLength` characters, with
 * an ellipsis where it was cut; whitespace runs are shown as one space.
 */
export function snippetParts(text: string, matches: WordMatch): TextPart[] {
  const flat = text.replace(/\s+/g, ' ').trim();
  const parts = highlightParts(flat, matches);
  if (flat.length <= snippetLength) return parts;
  let offset = 0;
  let firstMatch = 0;
  for (const part of parts) {
    if (part.match) {
      firstMatch = offset;
      break;
    }
    offset += part.text.length;
  }
  const start = Math.max(0, Math.min(firstMatch - contextBefore, flat.length - snippetLength));
  const end = Math.min(flat.length, start + snippetLength);
  // Cut at word boundaries, so a marked word is never split.
  const from = start === 0 ? 0 : flat.indexOf(' ', start) + 1 || start;
  const lastSpace = flat.lastIndexOf(' ', end);
  const to = end === flat.length || lastSpace <= from ? end : lastSpace;
  const shown = highlightParts(flat.slice(from, to), matches);
  if (from > 0) shown.unshift({ text: '…', match: false });
  if (to < flat.length) shown.push({ text: '…', match: false });
  return shown;
}

/** A task as its search result shows it: the title marked, and the description or first comment that matched. */
export interface TaskMatch {
  title: TextPart[];
  /** The matched passage; null when only the title matched. */
  detail: TextPart[] | null;
  /** The author of the comment that matched, when the passage is a comment. */
  commentBy: string | null;
}

export function taskMatch(
  task: { title: string; description: string; comments: readonly { text: string; userName: string }[] },
  matches: WordMatch,
): TaskMatch {
  const title = highlightParts(task.title, matches);
  if (mentionsAny(task.description, matches))
    return { title, detail: snippetParts(task.description, matches), commentBy: null };
  const comment = task.comments.find((candidate) => mentionsAny(candidate.text, matches));
  if (comment) return { title, detail: snippetParts(comment.text, matches), commentBy: comment.userName };
  return { title, detail: null, commentBy: null };
}

/** What the server searches: history the device may not hold (people are always on the device). */
export const serverSearchKinds = ['task', 'chat', 'direct'] as const;
export type ServerSearchKind = (typeof serverSearchKinds)[number];

/** Bounds of GET /api/search. */
export const searchLimits = {
  queryMax: 200,
  pageDefault: 20,
  pageMax: 50,
} as const;

/** A page's place in a kind's results, as the server gave it (its format is the server's). */
export const searchCursorSchema = z
  .string()
  .max(120)
  .regex(/^[\w.:|-]+$/, 'Use the `next` value of a previous answer');

/** GET /api/search: `q` in every kind, or one kind paged on from `before`, newest first. */
export const searchQuerySchema = z
  .object({
    q: z
      .string()
      .trim()
      .max(searchLimits.queryMax, `Use at most ${searchLimits.queryMax} characters`)
      .refine((q) => searchWords(q).length > 0, 'Type a word to search for'),
    kind: z.enum(serverSearchKinds).optional(),
    before: searchCursorSchema.optional(),
    limit: z.coerce.number().int().min(1).max(searchLimits.pageMax).default(searchLimits.pageDefault),
  })
  .refine((query) => query.before === undefined || query.kind !== undefined, {
    message: 'Name the kind whose results `before` pages on',
    path: ['kind'],
  });
export type SearchQuery = z.input<typeof searchQuerySchema>;

const personRefSchema = z.object({ id: idSchema, name: z.string() });

/** A team chat message the search found. */
export const chatSearchHitSchema = z.object({
  kind: z.literal('chat'),
  id: idSchema,
  author: personRefSchema,
  at: z.string(),
  snippet: z.array(textPartSchema),
});
/** A direct message of the searcher's the search found; `with` is the other participant. */
export const directSearchHitSchema = z.object({
  kind: z.literal('direct'),
  id: idSchema,
  conversationId: idSchema,
  with: personRefSchema,
  sender: personRefSchema,
  at: z.string(),
  snippet: z.array(textPartSchema),
});
/** A task the searcher may see that the search found, by its title, description or a comment. */
export const taskSearchHitSchema = z.object({
  kind: z.literal('task'),
  id: idSchema,
  status: z.enum(taskStatuses),
  title: z.array(textPartSchema),
  detail: z.array(textPartSchema).nullable(),
  commentBy: z.string().nullable(),
  at: z.string(),
});
export const searchHitSchema = z.discriminatedUnion('kind', [
  taskSearchHitSchema,
  chatSearchHitSchema,
  directSearchHitSchema,
]);
export type SearchHit = z.infer<typeof searchHitSchema>;

/** One kind's results, newest first, and the cursor of the next page (null: no more). */
export const searchGroupSchema = z.object({
  kind: z.enum(serverSearchKinds),
  hits: z.array(searchHitSchema),
  next: searchCursorSchema.nullable(),
});
export type SearchResultGroup = z.infer<typeof searchGroupSchema>;

/** GET /api/search answer: a group per kind searched, in `serverSearchKinds` order. */
export const searchResponseSchema = z.object({ groups: z.array(searchGroupSchema) });
export type SearchResponse = z.infer<typeof searchResponseSchema>;
