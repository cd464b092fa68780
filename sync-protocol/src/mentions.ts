import { limits } from './limits';

// A mention is `@` followed by a member's full name, read from the text alone (any client mentions by typing):
// the `@` starts the text or follows a character that is not part of a word ("mail@Ann Lee" is no mention), the
// name matches ignoring case, the longest name wins ("@Ann Lee" is Ann Lee, not Ann) and no word character
// follows it ("@Ann Leeds" is not Ann Lee). The server and the PWA both read mentions with these functions.

/** Someone who can be mentioned: a member of the workspace (in a direct message, its other participant). */
export interface Mentionable {
  id: string;
  name: string;
}

/** One mention in a text: from its `@` (`start`) to the end of the name (`end`, exclusive), and who it names. */
export interface MentionMatch {
  start: number;
  end: number;
  /** Usually one; two members with the same full name are both mentioned. */
  userIds: string[];
}

const wordCharacter = /[\p{L}\p{N}\p{M}_]/u;

const isWordCharacter = (character: string | undefined): boolean =>
  character !== undefined && wordCharacter.test(character);

/** Whether the `@` at `at` can start a mention: at the start of the text or after a non-word character. */
const startsMention = (text: string, at: number): boolean => text[at] === '@' && !isWordCharacter(text[at - 1]);

/** Whether a name may end at `end` of `text`: nothing follows, or a character that is not part of a word. */
const endsName = (text: string, end: number): boolean => !isWordCharacter(text[end]);

interface NameGroup {
  /** The name lower-cased, as compared. */
  key: string;
  length: number;
  userIds: string[];
}

/** The members grouped by lower-cased full name, longest first (so the longest name wins). */
function nameGroups(members: readonly Mentionable[]): NameGroup[] {
  const byKey = new Map<string, NameGroup>();
  for (const member of members) {
    const name = member.name.trim();
    if (name === '') continue;
    const key = name.toLowerCase();
    const group = byKey.get(key);
    if (group) {
      if (!group.userIds.includes(member.id)) group.userIds.push(member.id);
    } else byKey.set(key, { key, length: name.length, userIds: [member.id] });
  }
  return [...byKey.values()].sort((a, b) => b.length - a.length);
}

/**
 * A reader of the mentions of `members` in a text, in text order; names of people not among `members` are plain
 * text. Made once for many texts (a screen of messages), it sorts the names once.
 */
export function mentionFinder(members: readonly Mentionable[]): (text: string) => MentionMatch[] {
  const groups = nameGroups(members);
  return (text) => {
    const found: MentionMatch[] = [];
    for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
      if (!startsMention(text, at)) continue;
      const from = at + 1;
      const group = groups.find(
        ({ key, length }) => text.slice(from, from + length).toLowerCase() === key && endsName(text, from + length),
      );
      if (!group) continue;
      found.push({ start: at, end: from + group.length, userIds: group.userIds });
      at = from + group.length - 1;
    }
    return found;
  };
}

/** The mentions of `members` in `text`, in text order. */
export const findMentions = (text: string, members: readonly Mentionable[]): MentionMatch[] =>
  text.includes('@') ? mentionFinder(members)(text) : [];

/** The ids of the members mentioned in `text`, each once, in the order first mentioned. */
export const mentionedIds = (text: string, members: readonly Mentionable[]): string[] => [
  ...new Set(findMentions(text, members).flatMap((mention) => mention.userIds)),
];

/**
 * Every string of `text` that could be a mentioned full name (what follows a mention's `@` up to a place where a
 * name may end, at most `nameMaxLength` characters), so the server looks up those names only and never reads the
 * whole directory. `fold` is how the lookup folds case (SQLite's lower() folds ASCII letters only).
 */
export function mentionCandidates(
  text: string,
  fold: (name: string) => string = (name) => name.toLowerCase(),
): string[] {
  const candidates = new Set<string>();
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    if (!startsMention(text, at)) continue;
    const from = at + 1;
    const last = Math.min(text.length, from + limits.nameMaxLength);
    for (let end = from + 1; end <= last; end++) {
      // A stored name is trimmed, so a candidate never starts or ends with a space.
      if (/\s/.test(text[from] ?? '') || /\s/.test(text[end - 1] ?? '') || !endsName(text, end)) continue;
      candidates.add(fold(text.slice(from, end)));
    }
  }
  return [...candidates];
}

/** What a person typed after an `@` they are writing at `caret`: the `@`'s position and the query; null when none. */
export function mentionQueryAt(text: string, caret: number): { at: number; query: string } | null {
  const before = text.slice(Math.max(0, caret - limits.nameMaxLength - 1), caret);
  const offset = caret - before.length;
  for (let index = before.length - 1; index >= 0; index--) {
    const character = before[index];
    if (character === '\n') return null;
    if (character === '@' && startsMention(text, offset + index)) {
      const query = before.slice(index + 1);
      return query.startsWith(' ') ? null : { at: offset + index, query };
    }
  }
  return null;
}

/** What a notice ends a cut side of its preview with (as `cutText` does). */
const previewEllipsis = '...';

const isSpace = (character: string | undefined): boolean => character !== undefined && /\s/.test(character);

/**
 * The preview of a mention notice: at most `max` characters of `text` around one mention (`start` to `end`), the
 * mention in the middle as far as the text allows, whitespace runs as one space, never cutting a word in two where a
 * space is near, with an ellipsis on each side that was cut. Two mentions in messages that begin alike read apart.
 */
export function mentionPreview(text: string, mention: Pick<MentionMatch, 'start' | 'end'>, max: number): string {
  const flat = (part: string) => part.replace(/\s+/g, ' ');
  const before = flat(text.slice(0, mention.start)).trimStart();
  const name = text.slice(mention.start, mention.end);
  const after = flat(text.slice(mention.end)).trimEnd();
  const whole = `${before}${name}${after}`;
  if (whole.length <= max) return whole;
  const start = before.length;
  const end = start + name.length;
  if (name.length >= max) return `${start > 0 ? previewEllipsis : ''}${name.slice(0, max)}${previewEllipsis}`;
  // The room beside the mention, shared evenly; what one side cannot use goes to the other.
  const room = max - name.length;
  let left = Math.min(before.length, Math.floor(room / 2));
  const right = Math.min(after.length, room - left);
  left = Math.min(before.length, room - right);
  let from = start - left;
  let to = end + right;
  // A cut inside a word moves to the word's edge, unless that would reach the mention.
  if (from > 0 && !isSpace(whole[from - 1]) && !isSpace(whole[from])) {
    const space = whole.indexOf(' ', from);
    if (space !== -1 && space < start) from = space + 1;
  }
  if (to < whole.length && !isSpace(whole[to - 1]) && !isSpace(whole[to])) {
    const space = whole.lastIndexOf(' ', to);
    if (space >= end) to = space;
  }
  const shown = whole.slice(from, to).trim();
  return `${from > 0 ? previewEllipsis : ''}${shown}${to < whole.length ? previewEllipsis : ''}`;
}

/** The first mention of `userId` in `text` among `members`; undefined when they are not mentioned. */
export const firstMentionOf = (
  text: string,
  members: readonly Mentionable[],
  userId: string,
): MentionMatch | undefined => findMentions(text, members).find((mention) => mention.userIds.includes(userId));
