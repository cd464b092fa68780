import { memo } from 'react';
import { AlertTriangle, KeyRound, Trash2 } from 'lucide-react';
import type { EmployeeSummary } from '@office/sync-protocol';
import { UserAvatar } from '../../components/user-avatar';
import { CompletionBar } from './completion-bar';
import { overdueText } from './employee-format';
import { PresenceText } from './presence-text';
import styles from './employees.module.css';

/** How the list is laid out: cards in a grid, or one row per employee. */
export type EmployeeLayout = 'grid' | 'list';

interface EmployeeCardProps {
  employee: EmployeeSummary;
  layout: EmployeeLayout;
  now: number;
  onOpen: (id: string) => void;
  onDelete: (employee: EmployeeSummary) => void;
  /** Resets the employee's password to a one-time code (a dialog asks first). */
  onResetPassword: (employee: EmployeeSummary) => void;
}

/**
 * One employee: who, presence, task and message counts, completion rate and overdue warning. The name
 * button covers the whole card, so a click anywhere but the delete button opens the detail.
 */
export const EmployeeCard = memo(function EmployeeCard({
  employee,
  layout,
  now,
  onOpen,
  onDelete,
  onResetPassword,
}: EmployeeCardProps) {
  const { user, taskCounts } = employee;
  // One count per status: together they make the total.
  const byStatus = [
    { label: 'Completed', value: taskCounts.completed },
    { label: 'Working', value: taskCounts.working },
    { label: 'Pending', value: taskCounts.pending },
    { label: 'Waiting', value: taskCounts.waiting },
  ];
  return (
    <article className={`${styles.card} ${layout === 'list' ? styles.cardRow : ''}`}>
      <div className={styles.identity}>
        <span className={styles.avatarWrap}>
          <UserAvatar src={user.avatar} name={user.name} size={layout === 'list' ? 44 : 52} />
          <span className={`${styles.avatarDot} ${styles[employee.presence]}`} aria-hidden="true" />
        </span>
        <div className={styles.who}>
          <h3 className={styles.name}>
            <button
              type="button"
              className={styles.open}
              aria-label={`View details for ${user.name}`}
              onClick={() => onOpen(user.id)}
            >
              {user.name}
            </button>
          </h3>
          <p className={styles.email}>{user.email}</p>
          <PresenceText presence={employee.presence} lastSeen={employee.lastSeen} now={now} />
        </div>
      </div>

      <div className={styles.cardActions}>
        <button
          type="button"
          className={styles.resetButton}
          aria-label={`Reset password of ${user.name}`}
          title="Reset password"
          onClick={() => onResetPassword(employee)}
        >
          <KeyRound size={16} aria-hidden="true" />
        </button>
        <button
          type="button"
          className={styles.deleteButton}
          aria-label={`Delete ${user.name}`}
          title="Delete employee"
          onClick={() => onDelete(employee)}
        >
          <Trash2 size={16} aria-hidden="true" />
        </button>
      </div>

      <dl className={styles.counts}>
        <div className={`${styles.countLine} ${styles.countTotal}`}>
          <dt>Total Tasks</dt>
          <dd>{taskCounts.total}</dd>
        </div>
        <div className={`${styles.countLine} ${styles.countMessages}`}>
          <dt>Messages</dt>
          <dd>{employee.teamChatMessages}</dd>
        </div>
        {byStatus.map((count) => (
          <div key={count.label} className={styles.count}>
            <dt>{count.label}</dt>
            <dd>{count.value}</dd>
          </div>
        ))}
      </dl>

      <div className={styles.performance}>
        <CompletionBar rate={employee.completionRate} total={taskCounts.total} />
        {taskCounts.overdue > 0 && (
          <p className={styles.overdue}>
            <AlertTriangle size={14} aria-hidden="true" />
            {overdueText(taskCounts.overdue)}
          </p>
        )}
      </div>
    </article>
  );
});
