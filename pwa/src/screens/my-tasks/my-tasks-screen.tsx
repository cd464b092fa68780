import { useCallback, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { ClipboardList, Filter, Lock, Percent, SearchX } from 'lucide-react';
import { SearchField } from '../../components/search-field';
import { canOpenMyTasks, completionRate } from '@office/sync-protocol';
import { useAuth } from '../../app/auth/use-auth';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { completionTone } from '../../components/tasks/task-display';
import { useTaskWindow, useTasks, useToday } from '../../data/hooks';
import { completedBefore, countedOnDevice } from '../../sync/window';
import { StatCard, StatGrid } from '../dashboard/stat-card';
import { countTasks } from '../dashboard/task-summary';
import { useNow } from '../../components/use-now';
import {
  filterTasks,
  isStatusFilter,
  statusFilterOptions,
  tasksAssignedTo,
  type StatusFilter,
} from './my-task-filters';
import { MyTaskItem } from './my-task-item';
import { statusIcons } from './status-icons';
import { UpdateStatusModal } from './update-status-modal';
import styles from './my-tasks.module.css';

/** My Tasks & Projects (/my-tasks): the signed-in employee's assigned tasks and their statuses. */
export function MyTasksScreen() {
  const { user } = useAuth();
  const tasks = useTasks();
  const taskWindow = useTaskWindow();
  const today = useToday();
  // Re-renders every minute so "Last updated ... ago" stays true.
  const now = useNow().getTime();
  const [search, setSearch] = useState('');
  // The status filter lives in the address (?status=working), so the dashboard's cards can link to it.
  const [searchParams, setSearchParams] = useSearchParams();
  const statusParam = searchParams.get('status') ?? 'all';
  const statusFilter: StatusFilter = isStatusFilter(statusParam) ? statusParam : 'all';
  const setStatusFilter = (value: StatusFilter) =>
    setSearchParams(
      (params) => {
        const next = new URLSearchParams(params);
        if (value === 'all') next.delete('status');
        else next.set('status', value);
        return next;
      },
      { replace: true },
    );
  const [editingId, setEditingId] = useState<string | null>(null);
  // Stable, because the modal re-focuses itself whenever its onClose changes.
  const closeModal = useCallback(() => setEditingId(null), []);
  const openModal = useCallback((task: { id: string }) => setEditingId(task.id), []);

  if (!user) return null;
  // The route is guarded; this covers a role that changed while the screen was open.
  if (!canOpenMyTasks(user)) return <AccessRestricted />;

  const actor = { id: user.id, role: user.role };
  const mine = tasksAssignedTo(tasks ?? [], user.id);
  // Completed tasks older than the device's window are counted by the server (issue 46).
  const window = taskWindow ?? { edge: null, before: null, stale: false };
  const counts = countTasks(
    mine.filter((task) => countedOnDevice(task, window)),
    today,
  );
  const elsewhere = completedBefore(window, user.id);
  counts.total += elsewhere;
  counts.completed += elsewhere;
  const rate = completionRate(counts.completed, counts.total);
  const tone = completionTone(rate);
  const shown = filterTasks(mine, search, statusFilter);
  const filtering = search.trim() !== '' || statusFilter !== 'all';
  // Looked up among all tasks: one reassigned while open stays visible, without the permission to change it.
  const editing = editingId ? tasks?.find((task) => task.id === editingId) : undefined;

  return (
    <div className={styles.page}>
      <PageHeader title="My Tasks & Projects" subtitle="Track and update your assigned task statuses" />

      <StatGrid label="My task overview" columns={6}>
        <StatCard icon={ClipboardList} label="Total Tasks" value={counts.total} tone="neutral" />
        <StatCard icon={statusIcons.pending} label="Pending" value={counts.pending} tone="amber" />
        <StatCard icon={statusIcons.working} label="Working" value={counts.working} tone="brand" />
        <StatCard icon={statusIcons.completed} label="Completed" value={counts.completed} tone="green" />
        <StatCard icon={statusIcons.waiting} label="Waiting" value={counts.waiting} tone="violet" />
        <StatCard
          icon={Percent}
          label="Completion Rate"
          value={`${rate}%`}
          tone={tone === 'good' ? 'green' : tone === 'fair' ? 'amber' : 'red'}
          valueTone={tone}
        >
          <span className={styles.rateTrack} aria-hidden="true">
            <span className={`${styles.rateBar} ${styles[tone]}`} style={{ width: `${rate}%` }} />
          </span>
        </StatCard>
      </StatGrid>

      <div className={styles.toolbar}>
        <SearchField placeholder="Search tasks..." value={search} onValueChange={setSearch} />
        <label className={styles.filter}>
          <Filter size={16} aria-hidden="true" />
          <select
            aria-label="Filter by status"
            value={statusFilter}
            onChange={(event) => {
              if (isStatusFilter(event.target.value)) setStatusFilter(event.target.value);
            }}
          >
            {statusFilterOptions.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
      </div>

      {tasks === undefined ? (
        <p className={styles.loading}>Loading tasks...</p>
      ) : shown.length === 0 ? (
        <EmptyState
          variant="card"
          icon={filtering ? <SearchX size={28} /> : <ClipboardList size={28} />}
          title="No tasks found"
          text={filtering ? 'No tasks match your current filters.' : "You don't have any tasks assigned yet."}
          classNames={{ text: styles.emptyText }}
        />
      ) : (
        <ul className={styles.list} aria-label="My tasks">
          {shown.map((task) => (
            <MyTaskItem key={task.id} task={task} today={today} now={now} onUpdateStatus={openModal} />
          ))}
        </ul>
      )}

      {editing ? <UpdateStatusModal key={editing.id} task={editing} actor={actor} onClose={closeModal} /> : null}
    </div>
  );
}

function AccessRestricted() {
  return (
    <EmptyState
      variant="notice"
      icon={<Lock size={28} />}
      title="Access Restricted"
      titleAs="h1"
      text="This feature is only available for employees."
      classNames={{ root: styles.restricted, text: styles.emptyText }}
    />
  );
}
