import { useId } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import {
  AlertTriangle,
  Building2,
  CalendarDays,
  CheckCircle2,
  ListTodo,
  Mail,
  PlayCircle,
  type LucideIcon,
} from 'lucide-react';
import { formatDueDate, type EmployeeSummary } from '@office/sync-protocol';
import { Modal } from '../../components/modal';
import { DueText } from '../../components/tasks/due-text';
import { TaskBadges } from '../../components/tasks/task-badges';
import { dueLabel } from '../../components/tasks/task-due';
import { UserAvatar } from '../../components/user-avatar';
import { useWorkspace } from '../../sync/sync-context';
import { CompletionBar } from './completion-bar';
import { PresenceText } from './presence-text';
import styles from './employees.module.css';

interface EmployeeDetailModalProps {
  employee: EmployeeSummary;
  today: string;
  now: number;
  onClose: () => void;
}

/** An employee's detail: four stat tiles, the performance overview and up to 5 recent tasks. */
export function EmployeeDetailModal({ employee, today, now, onClose }: EmployeeDetailModalProps) {
  const { user, taskCounts } = employee;
  const performanceId = useId();
  const recentId = useId();
  // The full tasks as this device holds them: their history says when a completed one was completed.
  const { db } = useWorkspace();
  const recentIds = employee.recentTasks.map((task) => task.id).join(',');
  const held = useLiveQuery(() => db.tasks.bulkGet(recentIds.split(',')), [db, recentIds]);
  const historyOf = new Map((held ?? []).flatMap((task) => (task ? [[task.id, task.statusHistory] as const] : [])));
  return (
    <Modal title={user.name} onClose={onClose} size="large">
      <div className={styles.detail}>
        <div className={styles.profile}>
          <UserAvatar src={user.avatar} name={user.name} size={56} />
          <div className={styles.profileText}>
            <p className={styles.profileLine}>
              <Mail size={14} aria-hidden="true" />
              <span>{user.email}</span>
            </p>
            <p className={styles.profileLine}>
              <Building2 size={14} aria-hidden="true" />
              <span>{user.department || 'No department'}</span>
            </p>
            <PresenceText presence={employee.presence} lastSeen={employee.lastSeen} now={now} />
          </div>
        </div>

        <section className={styles.tiles} aria-label="Task statistics">
          <Tile icon={CheckCircle2} label="Completed" value={taskCounts.completed} tone="green" />
          <Tile icon={PlayCircle} label="Working" value={taskCounts.working} tone="brand" />
          <Tile icon={ListTodo} label="In Progress" value={taskCounts.inProgress} tone="amber" />
          <Tile icon={AlertTriangle} label="Overdue" value={taskCounts.overdue} tone="red" />
        </section>

        <section className={styles.section} aria-labelledby={performanceId}>
          <h3 id={performanceId} className={styles.sectionTitle}>
            Performance Overview
          </h3>
          <div className={styles.overview}>
            <CompletionBar rate={employee.completionRate} total={taskCounts.total} size="large" />
            <p className={styles.overviewText}>
              {taskCounts.completed} of {taskCounts.total} {taskCounts.total === 1 ? 'task' : 'tasks'} completed
            </p>
            <dl className={styles.totals}>
              <div>
                <dt>Total Tasks</dt>
                <dd>{taskCounts.total}</dd>
              </div>
              <div>
                <dt>Team Chat Messages</dt>
                <dd>{employee.teamChatMessages}</dd>
              </div>
            </dl>
          </div>
        </section>

        <section className={styles.section} aria-labelledby={recentId}>
          <h3 id={recentId} className={styles.sectionTitle}>
            Recent Tasks
          </h3>
          {employee.recentTasks.length === 0 ? (
            <p className={styles.noTasks}>no tasks</p>
          ) : (
            <ul className={styles.recentTasks} aria-label="Recent tasks">
              {employee.recentTasks.map((task) => {
                const history = historyOf.get(task.id);
                return (
                  <li key={task.id} className={styles.recentTask}>
                    <p className={styles.recentTitle}>{task.title}</p>
                    <div className={styles.recentMeta}>
                      <TaskBadges task={task} today={today} />
                      <span className={styles.recentDue}>
                        <CalendarDays size={14} aria-hidden="true" />
                        <span>{formatDueDate(task.dueDate)}</span>
                        <DueText label={dueLabel(history ? { ...task, statusHistory: history } : task, today, now)} />
                      </span>
                    </div>
                  </li>
                );
              })}
            </ul>
          )}
        </section>
      </div>
    </Modal>
  );
}

/** One number of the detail; read as "Label: value" by assistive technology and tests. */
function Tile({
  icon: Icon,
  label,
  value,
  tone,
}: {
  icon: LucideIcon;
  label: string;
  value: number;
  tone: 'green' | 'brand' | 'amber' | 'red';
}) {
  return (
    <div className={styles.tile} role="group" aria-label={`${label}: ${value}`}>
      <span className={`${styles.tileIcon} ${styles[`tile-${tone}`]}`} aria-hidden="true">
        <Icon size={18} />
      </span>
      <span className={styles.tileValue}>{value}</span>
      <span className={styles.tileLabel}>{label}</span>
    </div>
  );
}
