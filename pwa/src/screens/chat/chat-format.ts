import { groupByDate, type DateGroup } from '../../components/messages/message-format';

/** Enough of a chat message for sorting, grouping and searching. */
export interface ChatMessageLike {
  text: string;
  userName: string;
  /** ISO time the message was sent. */
  timestamp: string;
  userId?: { name: string } | undefined;
}

/** Splits chat messages, already in time order, into runs of the same local day. */
export const groupMessagesByDate = <T extends ChatMessageLike>(
  messages: readonly T[],
  now: Date = new Date(),
): DateGroup<T>[] => groupByDate(messages, (message) => message.timestamp, now);

/**
 * Whether a message's text or author contains the search text, ignoring case; null for a blank
 * search, which every message matches.
 */
export function chatSearchMatcher(search: string): ((message: ChatMessageLike) => boolean) | null {
  const needle = search.trim().toLocaleLowerCase();
  if (needle === '') return null;
  return (message) =>
    [message.text, message.userName, message.userId?.name ?? ''].some((value) =>
      value.toLocaleLowerCase().includes(needle),
    );
}

/** A presence as the members panel reads it. */
export const presenceLabel = (status: string): string =>
  status === 'online' ? 'Online' : status === 'away' ? 'Away' : 'Offline';

const presenceOrder: Record<string, number> = { online: 0, away: 1, offline: 2 };

/** The current user first, then the others: online, away, offline, each by name. */
export function orderMembers<T extends { id: string; name: string; status: string }>(
  users: readonly T[],
  selfId: string,
): T[] {
  const self = users.filter((user) => user.id === selfId);
  const others = users
    .filter((user) => user.id !== selfId)
    .sort(
      (a, b) =>
        (presenceOrder[a.status] ?? 2) - (presenceOrder[b.status] ?? 2) ||
        a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }),
    );
  return [...self, ...others];
}
