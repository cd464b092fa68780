import { format, isSameDay, subDays } from 'date-fns';

/**
 * The time of a message on the dashboard's Team Chat preview (spec section 9): HH:mm if it was
 * sent today, "Yesterday" if the day before, otherwise MMM d. Days are the viewer's local days.
 */
export function formatDashboardMessageTime(timestamp: string | number | Date, now: Date = new Date()): string {
  const sent = new Date(timestamp);
  if (Number.isNaN(sent.getTime())) return '';
  if (isSameDay(sent, now)) return format(sent, 'HH:mm');
  if (isSameDay(sent, subDays(now, 1))) return 'Yesterday';
  return format(sent, 'MMM d');
}
