import { format, formatDistance } from 'date-fns';

/**
 * "3 minutes ago", relative to `now`; an unreadable timestamp reads as an empty string. A time
 * slightly after `now` (a write made since the clock last ticked, or another device's clock) reads
 * as just now rather than "in less than a minute".
 */
export function relativeTime(iso: string, now: number): string {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? '' : formatDistance(Math.min(at, now), now, { addSuffix: true });
}

/** The full local date and time, for a tooltip next to a relative time. */
export function formatTimestamp(iso: string): string {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? '' : format(at, 'MMM d, yyyy, h:mm a');
}
