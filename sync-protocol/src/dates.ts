/** Today's date as the spec compares due dates: the ISO date (UTC), YYYY-MM-DD. */
export const isoToday = (now: Date = new Date()): string => now.toISOString().slice(0, 10);

/** Whole days from `today` to `dueDate` (both YYYY-MM-DD): negative when overdue. */
export function daysUntil(dueDate: string, today: string): number {
  return Math.round((Date.parse(`${dueDate}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000);
}

/** Overdue is derived: the due date is before today and the task is not completed (spec section 4). */
export const isOverdue = (task: { dueDate: string; status: string }, today: string): boolean =>
  task.status !== 'completed' && task.dueDate < today;

const monthAbbreviations = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A due date (YYYY-MM-DD) as people read it and every screen writes it: "Nov 27, 2026". The server words notices
 * with it too, so a notice says the date as the screens do. Anything else is returned as it is.
 */
export function formatDueDate(dueDate: string): string {
  const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dueDate);
  const month = parts ? monthAbbreviations[Number(parts[2]) - 1] : undefined;
  const day = parts ? Number(parts[3]) : 0;
  return parts && month && day >= 1 && day <= 31 ? `${month} ${day}, ${parts[1]}` : dueDate;
}

/** The due text of spec section 4. */
export function dueText(dueDate: string, today: string): string {
  const days = daysUntil(dueDate, today);
  if (days < 0) return `Overdue by ${-days} day${days === -1 ? '' : 's'}`;
  if (days === 0) return 'Due today';
  if (days === 1) return 'Due tomorrow';
  return `Due in ${days} days`;
}

/** The rounded percent of completed over total, 0 without tasks (spec section 4). */
export const completionRate = (completed: number, total: number): number =>
  total === 0 ? 0 : Math.round((completed / total) * 100);

/** Cuts a text to `max` characters for a notification, with an ellipsis when cut. */
export const cutText = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}...` : text);
