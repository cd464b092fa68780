import { useLiveQuery } from 'dexie-react-hooks';
import { Link } from 'react-router-dom';
import { format, parseISO } from 'date-fns';
import {
  AlertTriangle,
  ArrowRight,
  CalendarClock,
  CheckCircle2,
  CircleDot,
  ClipboardList,
  Clock,
  Hourglass,
  ListChecks,
  PlayCircle,
  User,
  UserCheck,
  Users,
} from 'lucide-react';
import { dueText, type TaskStatus } from '@office/sync-protocol';
import { useAuth } from '../../app/auth/use-auth';
import { PageHeader } from '../../components/page-header';
import { DueText } from '../../components/tasks/due-text';
import { TaskBadges } from '../../components/tasks/task-badges';
import { dueLabel } from '../../components/tasks/task-due';
import type { LocalTask } from '../../data/db';
import { useLatestChatMessages, useToday } from '../../data/hooks';
import { countOnlineNow, nameOf, type People } from '../../data/people';
import { usePeople, usePresence } from '../../data/use-people';
import { PendingMark } from '../../sync/pending-mark';
import { useWorkspace } from '../../sync/sync-context';
import { StatCard, StatGrid } from './stat-card';
import { readTaskOverview } from './task-overview';
import { dashboardMessageCount, TeamChatPreview } from './team-chat-preview';
import { useNow } from '../../components/use-now';
import styles from './dashboard.module.css';

/** Spec section 9: the dashboard shows 5 recent tasks and 3 overdue tasks. */
const recentTaskCount = 5;
const overdueTaskCount = 3;

const greetingFor = (hour: number): string =>
  hour < 12 ? 'Good morning' : hour < 18 ? 'Good afternoon' : 'Good evening';

/** The task detail a dashboard row opens: Task Management with that task's detail open. */
const taskDetailPath = (taskId: string): string => `/tasks?${new URLSearchParams({ task: taskId }).toString()}`;

/**
 * Where a stat card leads: the list it counts. An employee's task counts are the tasks assigned to
 * them, which My Tasks lists; overdue is the filter of Task Management (spec section 2).
 */
function statPaths(forEmployee: boolean): Record<TaskStatus | 'total' | 'overdue', string> {
  const list = forEmployee ? '/my-tasks' : '/tasks';
  const byStatus = (status: TaskStatus) => `${list}?status=${status}`;
  return {
    total: list,
    pending: byStatus('pending'),
    working: byStatus('working'),
    completed: byStatus('completed'),
    waiting: byStatus('waiting'),
    overdue: '/tasks?filter=overdue',
  };
}

/** Dashboard (/dashboard): a summary of the tasks this device holds, the team and the chat. */
export function DashboardScreen() {
  const { user } = useAuth();
  const { ctx, db } = useWorkspace();
  const people = usePeople();
  const presence = usePresence();
  const today = useToday();
  const overview = useLiveQuery(
    () => readTaskOverview(db, today, { overdue: overdueTaskCount, recent: recentTaskCount }),
    [db, today],
  );
  const latestChat = useLatestChatMessages(dashboardMessageCount);
  const now = useNow();
  if (!user) return null;

  // Spec section 6: Team Members and Online Now are for managers.
  const isManager = user.role === 'manager';
  const isEmployee = user.role === 'employee';
  const showAssignee = !isEmployee;
  const myName = people.get(ctx.userId)?.name ?? user.name;
  const header = (
    <PageHeader
      title={`${greetingFor(now.getHours())}, ${myName}`}
      subtitle={isManager ? "Here's how your team is doing today." : "Here's an overview of your tasks."}
    />
  );
  // The cards, the overdue alert and the two panels appear together once the device's tables are read:
  // shown one by one, each would push the others down as it arrived (a layout shift on every start).
  if (overview === undefined || latestChat === undefined) {
    return (
      <div className={styles.page}>
        {header}
        <p className={styles.loading} role="status">
          Loading...
        </p>
      </div>
    );
  }

  const { counts } = overview;
  const onlineNow = countOnlineNow([...people.values()], presence);
  const paths = statPaths(isEmployee);

  return (
    <div className={styles.page}>
      {header}

      <StatGrid label="Task overview" columns={isManager ? 4 : 6}>
        <StatCard icon={ClipboardList} label="Total Tasks" value={counts.total} tone="neutral" to={paths.total} />
        <StatCard icon={Clock} label="Pending" value={counts.pending} tone="amber" to={paths.pending} />
        <StatCard icon={PlayCircle} label="Working" value={counts.working} tone="brand" to={paths.working} />
        <StatCard icon={CheckCircle2} label="Completed" value={counts.completed} tone="green" to={paths.completed} />
        <StatCard icon={Hourglass} label="Waiting" value={counts.waiting} tone="violet" to={paths.waiting} />
        <StatCard icon={AlertTriangle} label="Overdue" value={counts.overdue} tone="red" to={paths.overdue} />
        {isManager ? (
          <>
            <StatCard icon={Users} label="Team Members" value={people.size} tone="brand" to="/team-members" />
            <StatCard
              icon={UserCheck}
              label="Online Now"
              value={onlineNow}
              tone="green"
              to="/employees?presence=online"
            />
          </>
        ) : null}
      </StatGrid>

      {counts.overdue > 0 ? (
        <OverdueAlert
          tasks={overview.overdue}
          total={counts.overdue}
          today={today}
          people={people}
          showAssignee={showAssignee}
        />
      ) : null}

      <div className={styles.columns}>
        <RecentTasks
          tasks={overview.recent}
          today={today}
          now={now.getTime()}
          people={people}
          showAssignee={showAssignee}
        />
        <TeamChatPreview messages={latestChat} people={people} now={now} />
      </div>
    </div>
  );
}

function RecentTasks({
  tasks,
  today,
  now,
  people,
  showAssignee,
}: {
  tasks: LocalTask[];
  today: string;
  now: number;
  people: People;
  showAssignee: boolean;
}) {
  return (
    <section className={styles.panel} aria-labelledby="dashboard-recent-tasks">
      <div className={styles.panelHeader}>
        <h2 id="dashboard-recent-tasks" className={styles.panelTitle}>
          <ListChecks size={18} aria-hidden="true" />
          Recent Tasks
        </h2>
        <Link to="/tasks" className={styles.panelLink}>
          View All
          <ArrowRight size={16} aria-hidden="true" />
        </Link>
      </div>
      {tasks.length === 0 ? (
        <div className={styles.empty}>
          <CircleDot size={28} aria-hidden="true" />
          <p>No tasks assigned yet</p>
        </div>
      ) : (
        <ul className={styles.taskList}>
          {tasks.map((task) => (
            <li key={task.id} className={`${styles.taskRow} ${styles.linkRow}`}>
              <div className={styles.taskMain}>
                <p className={styles.taskTitle}>
                  <Link className={styles.rowLink} to={taskDetailPath(task.id)}>
                    {task.title}
                  </Link>
                  {task.pending ? <PendingMark /> : null}
                </p>
                <p className={styles.taskMeta}>
                  <DueText label={dueLabel(task, today, now)} icon={<CalendarClock size={14} aria-hidden="true" />} />
                  {showAssignee && task.assignedTo ? (
                    <span className={styles.assignee}>
                      <User size={14} aria-hidden="true" />
                      {nameOf(people, task.assignedTo)}
                    </span>
                  ) : null}
                </p>
              </div>
              <TaskBadges task={task} today={today} className={styles.badges} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The first overdue tasks (`tasks`) of `total`. */
function OverdueAlert({
  tasks,
  total,
  today,
  people,
  showAssignee,
}: {
  tasks: LocalTask[];
  total: number;
  today: string;
  people: People;
  showAssignee: boolean;
}) {
  return (
    <section className={styles.alert} aria-labelledby="dashboard-overdue">
      <div className={styles.alertHeader}>
        <span className={styles.alertIcon} aria-hidden="true">
          <AlertTriangle size={20} />
        </span>
        <div>
          <h2 id="dashboard-overdue" className={styles.alertTitle}>
            Overdue Tasks
          </h2>
          <p className={styles.alertText}>
            {total === 1 ? '1 task is past its due date.' : `${total} tasks are past their due date.`}
          </p>
        </div>
      </div>
      <ul className={styles.alertList}>
        {tasks.map((task) => (
          <li key={task.id} className={`${styles.alertItem} ${styles.linkRow}`}>
            <div className={styles.taskMain}>
              <p className={styles.taskTitle}>
                <Link className={styles.rowLink} to={taskDetailPath(task.id)}>
                  {task.title}
                </Link>
                {task.pending ? <PendingMark /> : null}
              </p>
              {showAssignee && task.assignedTo ? (
                <p className={styles.assignee}>{nameOf(people, task.assignedTo)}</p>
              ) : null}
            </div>
            <time
              className={styles.alertDue}
              dateTime={task.dueDate}
              title={`Due ${format(parseISO(task.dueDate), 'PPP')}`}
            >
              {dueText(task.dueDate, today)}
            </time>
          </li>
        ))}
      </ul>
      {total > tasks.length ? (
        <Link to="/tasks?filter=overdue" className={styles.alertLink}>
          View All Overdue Tasks
          <ArrowRight size={16} aria-hidden="true" />
        </Link>
      ) : null}
    </section>
  );
}
