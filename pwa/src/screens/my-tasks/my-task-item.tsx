import { memo } from 'react';
import { CalendarClock, History, RefreshCw } from 'lucide-react';
import { Button } from '../../components/button';
import { DueText } from '../../components/tasks/due-text';
import { TaskBadges } from '../../components/tasks/task-badges';
import { dueLabel } from '../../components/tasks/task-due';
import type { LocalTask } from '../../data/db';
import { PendingMark } from '../../sync/pending-mark';
import { exactTime, timeAgo } from '../dashboard/task-summary';
import styles from './my-tasks.module.css';

interface MyTaskItemProps {
  task: LocalTask;
  today: string;
  /** The screen's clock (epoch ms, refreshed every minute), so "Last updated ... ago" stays true. */
  now: number;
  /** Opens the task's detail: description, history and comments. */
  onOpen: (task: LocalTask) => void;
  onUpdateStatus: (task: LocalTask) => void;
}

/**
 * Every live query hands out new task objects, so without this each status change (and the modal
 * opening or closing) re-rendered every row; a row now re-renders only when what it shows changed.
 */
const sameRow = (before: MyTaskItemProps, after: MyTaskItemProps): boolean =>
  before.today === after.today &&
  before.now === after.now &&
  before.onOpen === after.onOpen &&
  before.onUpdateStatus === after.onUpdateStatus &&
  before.task.id === after.task.id &&
  before.task.title === after.task.title &&
  before.task.description === after.task.description &&
  before.task.status === after.task.status &&
  before.task.priority === after.task.priority &&
  before.task.dueDate === after.task.dueDate &&
  before.task.updatedAt === after.task.updatedAt &&
  before.task.statusHistory.length === after.task.statusHistory.length &&
  before.task.pending === after.task.pending;

/**
 * One assigned task on My Tasks, with its "Update Status" button. The title button covers the whole row, so a
 * click anywhere else on it opens the task's detail.
 */
export const MyTaskItem = memo(function MyTaskItem({ task, today, now, onOpen, onUpdateStatus }: MyTaskItemProps) {
  const due = dueLabel(task, today, now);
  return (
    <li className={`${styles.item} ${due.tone === 'overdue' ? styles.itemOverdue : ''}`}>
      <div className={styles.itemMain}>
        <div className={styles.itemHead}>
          <h3 className={styles.itemTitle}>
            <button type="button" className={styles.itemOpen} onClick={() => onOpen(task)}>
              {task.title}
            </button>
            {task.pending ? <PendingMark /> : null}
          </h3>
          <TaskBadges task={task} today={today} />
        </div>
        {task.description ? <p className={styles.description}>{task.description}</p> : null}
        <div className={styles.meta}>
          <DueText label={due} icon={<CalendarClock size={15} aria-hidden="true" />} />
          <span className={styles.updated}>
            <History size={15} aria-hidden="true" />
            Last updated{' '}
            <time dateTime={task.updatedAt} title={exactTime(task.updatedAt)}>
              {timeAgo(task.updatedAt)}
            </time>
          </span>
        </div>
      </div>
      <div className={styles.itemAction}>
        <Button
          variant="secondary"
          size="small"
          aria-label={`Update status of ${task.title}`}
          onClick={() => onUpdateStatus(task)}
        >
          <RefreshCw size={15} aria-hidden="true" />
          Update Status
        </Button>
      </div>
    </li>
  );
}, sameRow);
