import { CalendarDays, Trash2 } from 'lucide-react';
import { formatDueDate, isOverdue } from '@office/sync-protocol';
import type { LocalTask } from '../../data/db';
import { avatarOf, nameOf, type People } from '../../data/people';
import { DueText } from '../../components/tasks/due-text';
import { TaskBadges } from '../../components/tasks/task-badges';
import { dueLabel } from '../../components/tasks/task-due';
import { UserAvatar } from '../../components/user-avatar';

import { PendingMark } from '../../sync/pending-mark';
import styles from './tasks.module.css';

interface TaskCardProps {
  task: LocalTask;
  today: string;
  /** The screen's clock (epoch ms, refreshed every minute), for "Completed 2 hours ago". */
  now: number;
  /** The directory: the assignee's name and avatar as it knows them now. */
  people: People;
  canDelete: boolean;
  onOpen: (taskId: string) => void;
  onDelete: (taskId: string) => void;
}

/** One task in the grid. The title button covers the whole card, so a click anywhere opens the task. */
export function TaskCard({ task, today, now, people, canDelete, onOpen, onDelete }: TaskCardProps) {
  const overdue = isOverdue(task, today);
  const assignee = task.assignedTo ? nameOf(people, task.assignedTo) : 'Unassigned';

  return (
    <article className={`${styles.card} ${overdue ? styles.cardOverdue : ''}`}>
      <div className={styles.cardTop}>
        <div className={styles.badges}>
          <TaskBadges task={task} today={today} />
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
            <UserAvatar src={avatarOf(people, task.assignedTo.id)} name={assignee} size={24} />
          ) : (
            <span className={styles.unassignedDot} aria-hidden="true" />
          )}
          <span className={`${styles.assigneeName} ${task.assignedTo ? '' : styles.muted}`}>{assignee}</span>
        </span>
        <span className={styles.due}>
          <CalendarDays size={14} aria-hidden="true" className={styles.dueIcon} />
          <span className={styles.dueDate}>{formatDueDate(task.dueDate)}</span>
          <DueText label={dueLabel(task, today, now)} />
        </span>
      </div>
    </article>
  );
}
