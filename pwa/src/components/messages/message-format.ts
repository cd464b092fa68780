import { format, isSameDay, subDays } from 'date-fns';

const toDate = (timestamp: string | number | Date): Date | null => {
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? null : date;
};

/**
 * The time of a chat message (spec section 9): 'h:mm a' if sent today, 'Yesterday h:mm a' if
 * the day before, otherwise 'MMM d, h:mm a'. Days are the viewer's local days.
 */
export function formatChatTime(timestamp: string | number | Date, now: Date = new Date()): string {
  const sent = toDate(timestamp);
  if (!sent) return '';
  if (isSameDay(sent, now)) return format(sent, 'h:mm a');
  if (isSameDay(sent, subDays(now, 1))) return `Yesterday ${format(sent, 'h:mm a')}`;
  return format(sent, 'MMM d, h:mm a');
}

/** The separator above a day's messages: "Today", "Yesterday" or 'MMMM d, yyyy' (spec sections 2 and 9). */
export function dateSeparatorLabel(timestamp: string | number | Date, now: Date = new Date()): string {
  const sent = toDate(timestamp);
  if (!sent) return '';
  if (isSameDay(sent, now)) return 'Today';
  if (isSameDay(sent, subDays(now, 1))) return 'Yesterday';
  return format(sent, 'MMMM d, yyyy');
}

/** One day of messages under its separator. */
export interface DateGroup<T> {
  /** The local day, yyyy-MM-dd: stable as a React key. */
  key: string;
  label: string;
  messages: T[];
}

/** Splits items, already in time order, into runs of the same local day; `timeOf` gives each one's ISO time. */
export function groupByDate<T>(
  items: readonly T[],
  timeOf: (item: T) => string,
  now: Date = new Date(),
): DateGroup<T>[] {
  const groups: DateGroup<T>[] = [];
  for (const item of items) {
    const time = timeOf(item);
    const sent = toDate(time);
    const key = sent ? format(sent, 'yyyy-MM-dd') : 'unknown';
    const last = groups.at(-1);
    if (last && last.key === key) {
      last.messages.push(item);
    } else {
      groups.push({ key, label: dateSeparatorLabel(time, now), messages: [item] });
    }
  }
  return groups;
}
