import { CalendarDays, Trash2 } from 'lucide-react';
import { dueText, isOverdue } from '@office/sync-protocol';
import type { LocalTask } from '../../data/db';
import { OverdueBadge, PriorityBadge, StatusBadge } from '../../components/tasks/task-badges';
import { UserAvatar } from '../../components/user-avatar';
import { PendingMark } from '../../sync/pending-mark';
import { formatDueDate } from './task-format';
import styles from './tasks.module.css';

interface TaskCardProps {
  task: LocalTask;
  today: string;
  /** The assignee's avatar, from the directory. */
  assigneeAvatar: string | null;
  canDelete: boolean;
  onOpen: (taskId: string) => void;
  onDelete: (taskId: string) => void;
}

/** One task in the grid. The title button covers the whole card, so a click anywhere opens the task. */
export function TaskCard({ task, today, assigneeAvatar, canDelete, onOpen, onDelete }: TaskCardProps) {
  const overdue = isOverdue(task, today);
  const completed = task.status === 'completed';
  const assignee = task.assignedTo?.name ?? 'Unassigned';
  const dueTone = completed ? styles.dueMuted : overdue ? styles.dueOverdue : styles.dueNormal;

  return (
    <article className={`${styles.card} ${overdue ? styles.cardOverdue : ''}`}>
      <div className={styles.cardTop}>
        <div className={styles.badges}>
          <StatusBadge status={task.status} />
          {overdue && <OverdueBadge />}
          <PriorityBadge priority={task.priority} />
          {task.pending === 1 && <PendingMark />}
        </div>
        {canDelete && (
          <button
            type="button"
            className={styles.iconButton}
            aria-label={`Delete task ${task.title}`}
            title="Delete task"
            onClick={() => onDelete(task.id)}
          >
            <Trash2 size={16} aria-hidden="true" />
          </button>
        )}
      </div>

      <h3 className={styles.cardTitle}>
        <button type="button" className={styles.cardOpen} onClick={() => onOpen(task.id)}>
          {task.title}
        </button>
      </h3>
      {task.description.trim() !== '' ? (
        <p className={styles.cardDescription}>{task.description}</p>
      ) : (
        <p className={`${styles.cardDescription} ${styles.muted}`}>No description</p>
      )}

      <div className={styles.cardFooter}>
        <span className={styles.assignee}>
          {task.assignedTo ? (
            <UserAvatar src={assigneeAvatar} name={assignee} size={24} />
          ) : (
            <span className={styles.unassignedDot} aria-hidden="true" />
          )}
          <span className={`${styles.assigneeName} ${task.assignedTo ? '' : styles.muted}`}>{assignee}</span>
        </span>
        <span className={styles.due}>
          <CalendarDays size={14} aria-hidden="true" className={styles.dueIcon} />
          <span className={styles.dueDate}>{formatDueDate(task.dueDate)}</span>
          <span className={`${styles.dueText} ${dueTone}`}>{dueText(task.dueDate, today)}</span>
        </span>
      </div>
    </article>
  );
}
