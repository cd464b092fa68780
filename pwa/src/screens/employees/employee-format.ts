import { formatDistance } from 'date-fns';
import type { PresenceStatus } from '@office/sync-protocol';
import { ApiError, serverMessageOr } from '../../api/http';
import { failureTexts } from '../../app/failure-messages';

export const presenceLabels: Record<PresenceStatus, string> = {
  online: 'Online',
  away: 'Away',
  offline: 'Offline',
};

/**
 * "Last seen 5 minutes ago", relative to `now`; null without a usable time. A time slightly after
 * `now` (another device's clock) reads as just now rather than "in less than a minute".
 */
export function lastSeenText(lastSeen: string | null, now: number): string | null {
  if (lastSeen === null) return null;
  const at = Date.parse(lastSeen);
  if (Number.isNaN(at)) return null;
  return `Last seen ${formatDistance(Math.min(at, now), now, { addSuffix: true })}`;
}

/** The card's warning: "1 overdue task", "3 overdue tasks". */
export const overdueText = (count: number): string => `${count} overdue ${count === 1 ? 'task' : 'tasks'}`;

/** Spec section 8, "Employee delete success". */
export const deletedText = (name: string): string => `${name} has been successfully deleted.`;

/**
 * Spec section 8, "Employee delete failure": the server's message, or "Failed to delete employee"; when
 * no answer came (offline, network error, timeout) "Failed to delete employee. Please try again.".
 */
export function deleteErrorMessage(error: unknown): string {
  if (error instanceof ApiError && error.status > 0) return serverMessageOr(error, failureTexts.employeeDeleteFailed);
  return failureTexts.employeeDeleteException;
}
