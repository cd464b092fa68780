/** Typing entries expire 5 s after their last refresh, checked every second (spec sections 4 and 9). */
export const typingExpiryMs = 5_000;
export const typingCheckMs = 1_000;

/** Someone typing in the team chat, as last announced. */
export interface TypingEntry {
  userId: string;
  userName: string;
  /** When the last `user-typing` for this user arrived (ms since epoch). */
  at: number;
}

/** Adds or refreshes an entry; the viewer's own typing is never shown. */
export function addTypingEntry(
  entries: readonly TypingEntry[],
  event: { userId: string; userName: string },
  now: number,
  selfId: string,
): readonly TypingEntry[] {
  if (event.userId === selfId) return entries;
  const entry: TypingEntry = { userId: event.userId, userName: event.userName, at: now };
  const index = entries.findIndex((existing) => existing.userId === event.userId);
  if (index === -1) return [...entries, entry];
  return entries.map((existing, position) => (position === index ? entry : existing));
}

/** Removes a user's entry (on `stop-typing`); the same array when there was none. */
export function removeTypingEntry(entries: readonly TypingEntry[], userId: string): readonly TypingEntry[] {
  return entries.some((entry) => entry.userId === userId)
    ? entries.filter((entry) => entry.userId !== userId)
    : entries;
}

/** Drops entries not refreshed for `expiryMs`; the same array when none expired, so nothing re-renders. */
export function expireTypingEntries(
  entries: readonly TypingEntry[],
  now: number,
  expiryMs: number = typingExpiryMs,
): readonly TypingEntry[] {
  const kept = entries.filter((entry) => now - entry.at < expiryMs);
  return kept.length === entries.length ? entries : kept;
}

/** The line under the message list: "Alice Johnson is typing...", or null when nobody is. */
export function typingText(names: readonly string[]): string | null {
  const [first, second] = names;
  if (first === undefined) return null;
  if (second === undefined) return `${first} is typing...`;
  if (names.length === 2) return `${first} and ${second} are typing...`;
  const others = names.length - 1;
  return `${first} and ${others} others are typing...`;
}
