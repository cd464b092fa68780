import { format, formatDistance, parseISO } from 'date-fns';
import { daysUntil, dueText, isOverdue } from '@office/sync-protocol';
import { displayStatus } from './task-display';

/** How a task's due line reads: overdue in red, due today or tomorrow in amber, completed in green. */
export type DueTone = 'overdue' | 'soon' | 'normal' | 'done';

/** A task's due line: its text, its tone and a tooltip with the exact date. */
export interface DueLabel {
  text: string;
  tone: DueTone;
  title: string;
}

/** Enough of a task to say when it is due or when it was completed. */
export interface DueTask {
  status: string;
  dueDate: string;
  updatedAt: string;
  statusHistory?: readonly { status: string; updatedAt: string; superseded: boolean }[];
}

/**
 * When a completed task was completed: the latest status change to completed that took effect (a
 * superseded one did not), or the task's last update when its history does not say.
 */
export function completedAt(task: DueTask): string {
  const entry = task.statusHistory?.findLast((change) => change.status === 'completed' && !change.superseded);
  return entry?.updatedAt ?? task.updatedAt;
}

const exact = (iso: string): string => {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? '' : format(at, 'MMM d, yyyy, h:mm a');
};

/** "Due Jun 15, 2030" (the local day the YYYY-MM-DD names); the raw text when it is no date. */
const dueTitleOf = (dueDate: string): string => {
  const day = parseISO(dueDate);
  return `Due ${Number.isNaN(day.getTime()) ? dueDate : format(day, 'MMM d, yyyy')}`;
};

/**
 * The due text of spec section 4 with its tone, as of `today` (YYYY-MM-DD). A completed task has no
 * due warning at all ("Overdue by …", "Due in …"): it reads when it was completed, relative to `now`.
 */
export function dueLabel(task: DueTask, today: string, now: number): DueLabel {
  const dueTitle = dueTitleOf(task.dueDate);
  if (displayStatus(task.status) === 'completed') {
    const done = completedAt(task);
    const at = Date.parse(done);
    const when = Number.isNaN(at) ? '' : ` ${formatDistance(Math.min(at, now), now, { addSuffix: true })}`;
    return { text: `Completed${when}`, tone: 'done', title: `Completed ${exact(done)} · ${dueTitle}` };
  }
  const text = dueText(task.dueDate, today);
  if (isOverdue(task, today)) return { text, tone: 'overdue', title: dueTitle };
  return { text, tone: daysUntil(task.dueDate, today) <= 1 ? 'soon' : 'normal', title: dueTitle };
}
