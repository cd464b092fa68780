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
import { dueText, isOverdue } from '@office/sync-protocol';
import { useAuth } from '../../app/auth/use-auth';
import { PageHeader } from '../../components/page-header';
import { OverdueBadge, PriorityBadge, StatusBadge } from '../../components/tasks/task-badges';
import type { LocalTask } from '../../data/db';
import { useLatestChatMessages, useLocalUser, useTasks, useToday, useUsers } from '../../data/hooks';
import { PendingMark } from '../../sync/pending-mark';
import { useWorkspace } from '../../sync/sync-context';
import { StatCard, StatGrid } from './stat-card';
import { countTasks, dueLabel } from './task-summary';
import { dashboardMessageCount, TeamChatPreview } from './team-chat-preview';
import { useNow } from '../../components/use-now';
import styles from './dashboard.module.css';

/** Spec section 9: the dashboard shows 5 recent tasks and 3 overdue tasks. */
const recentTaskCount = 5;
const overdueTaskCount = 3;

const greetingFor = (hour: number): string =>
  hour < 12 ? 'Good morning' : hour < 18 ? 'Good afternoon' : 'Good evening';

/** Dashboard (/dashboard): a summary of the tasks this device holds, the team and the chat. */
export function DashboardScreen() {
  const { user } = useAuth();
  const { ctx } = useWorkspace();
  const me = useLocalUser(ctx.userId);
  const tasks = useTasks();
  const latestChat = useLatestChatMessages(dashboardMessageCount);
  const users = useUsers();
  const today = useToday();
  const now = useNow();
  if (!user) return null;

  // Spec section 6: Team Members and Online Now are for managers.
  const isManager = user.role === 'manager';
  const showAssignee = user.role !== 'employee';
  const header = (
    <PageHeader
      title={`${greetingFor(now.getHours())}, ${me?.name ?? user.name}`}
      subtitle={isManager ? "Here's how your team is doing today." : "Here's an overview of your tasks."}
    />
  );
  // The cards, the overdue alert and the two panels appear together once the device's tables are read:
  // shown one by one, each would push the others down as it arrived (a layout shift on every start).
  if (tasks === undefined || users === undefined || latestChat === undefined) {
    return (
      <div className={styles.page}>
        {header}
        <p className={styles.loading} role="status">
          Loading...
        </p>
      </div>
    );
  }

  const counts = countTasks(tasks, today);
  const overdue = tasks.filter((task) => isOverdue(task, today));
  const teamSize = users.length;
  const onlineNow = users.filter((member) => member.status === 'online').length;

  return (
    <div className={styles.page}>
      {header}

      <StatGrid label="Task overview" columns={isManager ? 4 : 6}>
        <StatCard icon={ClipboardList} label="Total Tasks" value={counts.total} tone="neutral" />
        <StatCard icon={Clock} label="Pending" value={counts.pending} tone="amber" />
        <StatCard icon={PlayCircle} label="Working" value={counts.working} tone="brand" />
        <StatCard icon={CheckCircle2} label="Completed" value={counts.completed} tone="green" />
        <StatCard icon={Hourglass} label="Waiting" value={counts.waiting} tone="violet" />
        <StatCard icon={AlertTriangle} label="Overdue" value={counts.overdue} tone="red" />
        {isManager ? (
          <>
            <StatCard icon={Users} label="Team Members" value={teamSize} tone="brand" />
            <StatCard icon={UserCheck} label="Online Now" value={onlineNow} tone="green" />
          </>
        ) : null}
      </StatGrid>

      {overdue.length > 0 ? <OverdueAlert tasks={overdue} today={today} showAssignee={showAssignee} /> : null}

      <div className={styles.columns}>
        <RecentTasks tasks={tasks} today={today} showAssignee={showAssignee} />
        <TeamChatPreview messages={latestChat} now={now} />
      </div>
    </div>
  );
}

function RecentTasks({ tasks, today, showAssignee }: { tasks: LocalTask[]; today: string; showAssignee: boolean }) {
  const recent = tasks.slice(0, recentTaskCount);
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
      {recent.length === 0 ? (
        <div className={styles.empty}>
          <CircleDot size={28} aria-hidden="true" />
          <p>No tasks assigned yet</p>
        </div>
      ) : (
        <ul className={styles.taskList}>
          {recent.map((task) => {
            const due = dueLabel(task, today);
            return (
              <li key={task.id} className={styles.taskRow}>
                <div className={styles.taskMain}>
                  <p className={styles.taskTitle}>
                    {task.title}
                    {task.pending ? <PendingMark /> : null}
                  </p>
                  <p className={styles.taskMeta}>
                    <span className={`${styles.due} ${styles[due.tone]}`}>
                      <CalendarClock size={14} aria-hidden="true" />
                      {due.text}
                    </span>
                    {showAssignee && task.assignedTo ? (
                      <span className={styles.assignee}>
                        <User size={14} aria-hidden="true" />
                        {task.assignedTo.name}
                      </span>
                    ) : null}
                  </p>
                </div>
                <div className={styles.badges}>
                  {due.tone === 'overdue' ? <OverdueBadge /> : null}
                  <StatusBadge status={task.status} />
                  <PriorityBadge priority={task.priority} />
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function OverdueAlert({ tasks, today, showAssignee }: { tasks: LocalTask[]; today: string; showAssignee: boolean }) {
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
            {tasks.length === 1 ? '1 task is past its due date.' : `${tasks.length} tasks are past their due date.`}
          </p>
        </div>
      </div>
      <ul className={styles.alertList}>
        {tasks.slice(0, overdueTaskCount).map((task) => (
          <li key={task.id} className={styles.alertItem}>
            <div className={styles.taskMain}>
              <p className={styles.taskTitle}>
                {task.title}
                {task.pending ? <PendingMark /> : null}
              </p>
              {showAssignee && task.assignedTo ? <p className={styles.assignee}>{task.assignedTo.name}</p> : null}
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
      {tasks.length > overdueTaskCount ? (
        <Link to="/tasks?filter=overdue" className={styles.alertLink}>
          View All Overdue Tasks
          <ArrowRight size={16} aria-hidden="true" />
        </Link>
      ) : null}
    </section>
  );
}
