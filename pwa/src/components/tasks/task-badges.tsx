import { isOverdue, type TaskPriority } from '@office/sync-protocol';
import { displayStatus, priorityLabels, statusLabels } from './task-display';
import styles from './task-badges.module.css';

/** A task's status as a coloured badge; unknown values read Pending. */
export function StatusBadge({ status }: { status: string }) {
  const shown = displayStatus(status);
  return <span className={`${styles.badge} ${styles[`status-${shown}`]}`}>{statusLabels[shown]}</span>;
}

/** A task's priority as a coloured badge. */
export function PriorityBadge({ priority }: { priority: TaskPriority }) {
  return (
    <span className={`${styles.badge} ${styles[`priority-${priority}`]}`} title="Priority">
      {priorityLabels[priority]}
    </span>
  );
}

/** Overdue is a display state, derived (spec section 4). */
export function OverdueBadge() {
  return <span className={`${styles.badge} ${styles.overdue}`}>Overdue</span>;
}

/**
 * A task's badges in the one order every screen uses: status, priority, then Overdue when it is.
 * Completed tasks are never overdue (spec section 4).
 */
export function TaskBadges({
  task,
  today,
  className,
}: {
  task: { status: string; priority: TaskPriority; dueDate: string };
  today: string;
  className?: string | undefined;
}) {
  return (
    <span className={`${styles.group} ${className ?? ''}`}>
      <StatusBadge status={task.status} />
      <PriorityBadge priority={task.priority} />
      {isOverdue(task, today) && <OverdueBadge />}
    </span>
  );
}
