import { differenceInCalendarDays, differenceInMinutes, format, isSameDay, isSameYear } from 'date-fns';
import { roleLabel } from '../../components/role-badge';

/** Enough of a direct message for a one-line preview. */
export interface PreviewMessage {
  text: string;
  sender: { id: string };
  attachments: readonly { originalName: string }[];
}

/**
 * The sidebar's line under a name: the last message's text, or the file's name, or "Shared files" for
 * several; "You: " before one's own; "No messages yet" when there is none (or it was deleted).
 */
export function conversationPreview(lastMessage: PreviewMessage | null, selfId: string): string {
  if (!lastMessage) return 'No messages yet';
  const text = lastMessage.text.trim().replace(/\s+/g, ' ');
  const [only, ...more] = lastMessage.attachments;
  const body = text !== '' ? text : only && more.length === 0 ? only.originalName : 'Shared files';
  return lastMessage.sender.id === selfId ? `You: ${body}` : body;
}

const toDate = (iso: string): Date | null => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
};

/**
 * When a conversation was last active, as the sidebar reads it: "Just now", "5m", "3:45 PM" (today),
 * "Yesterday", a weekday within the week, "Mar 4", or "Mar 4, 2024" in another year.
 */
export function formatConversationTime(iso: string | null, now: Date = new Date()): string {
  const at = iso ? toDate(iso) : null;
  if (!at) return '';
  const minutes = differenceInMinutes(now, at);
  if (minutes < 1) return 'Just now';
  if (minutes < 60) return `${minutes}m`;
  if (isSameDay(at, now)) return format(at, 'h:mm a');
  const days = differenceInCalendarDays(now, at);
  if (days === 1) return 'Yesterday';
  if (days > 1 && days < 7) return format(at, 'EEE');
  return isSameYear(at, now) ? format(at, 'MMM d') : format(at, 'MMM d, yyyy');
}

/** Whether any of the values contains the search text, ignoring case; everything matches a blank search. */
export function matchesSearch(search: string, ...values: readonly (string | null | undefined)[]): boolean {
  const needle = search.trim().toLocaleLowerCase();
  if (needle === '') return true;
  return values.some((value) => (value ?? '').toLocaleLowerCase().includes(needle));
}

/** The conversations whose other participant's name matches the search, in the order given. */
export function filterConversations<T extends { other: { name: string } }>(
  conversations: readonly T[],
  search: string,
): readonly T[] {
  return search.trim() === '' ? conversations : conversations.filter((item) => matchesSearch(search, item.other.name));
}

/** Who a new conversation can be with: everyone but the viewer, matching the search by name or email, by name. */
export function conversationCandidates<T extends { id: string; name: string; email?: string | null }>(
  users: readonly T[],
  selfId: string,
  search: string,
): T[] {
  return users
    .filter((user) => user.id !== selfId && matchesSearch(search, user.name, user.email))
    .sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }));
}

/** The role under a user's name in the new-conversation list; "Team Member" when there is none (spec section 2). */
export const userRoleText = (role: string | null | undefined): string => (role ? roleLabel(role) : 'Team Member');

/** The unread badge's accessible label. */
export const unreadLabel = (count: number): string => `${count} unread message${count === 1 ? '' : 's'}`;
