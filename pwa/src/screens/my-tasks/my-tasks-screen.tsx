import { useCallback, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { ClipboardList, Filter, Lock, Percent, SearchX } from 'lucide-react';
import { SearchField } from '../../components/search-field';
import { canOpenMyTasks, completionRate } from '@office/sync-protocol';
import { useAuth } from '../../app/auth/use-auth';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { useOlderCompletedTasks } from '../../components/tasks/older-tasks';
import { OlderTasksEdge } from '../../components/tasks/older-tasks-edge';
import { completionTone } from '../../components/tasks/task-display';
import { useTaskWindow, useTasks, useToday } from '../../data/hooks';
import { usePeople } from '../../data/use-people';
import { completedBefore, countedOnDevice } from '../../sync/window';
import { StatCard, StatGrid } from '../dashboard/stat-card';
import { countTasks } from '../dashboard/task-summary';
import { useNow } from '../../components/use-now';
import { TaskDetailModal } from '../tasks/task-detail-modal';
import {
  filterTasks,
  inOrder,
  isStatusFilter,
  keepOrder,
  statusFilterOptions,
  tasksAssignedTo,
  type StatusFilter,
} from './my-task-filters';
import { MyTaskItem } from './my-task-item';
import { statusIcons } from './status-icons';
import { UpdateStatusModal } from './update-status-modal';
import styles from './my-tasks.module.css';

const noTasks: ReadonlySet<string> = new Set();

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
  const people = usePeople();
  // The open task: its Update Task Status modal, or its detail (comments and history).
  const [open, setOpen] = useState<{ id: string; view: 'status' | 'detail' } | null>(null);
  // Stable, because the modal re-focuses itself whenever its onClose changes.
  const closeModal = useCallback(() => setOpen(null), []);
  // A task opened here stays listed under the filter that showed it, even once it no longer matches, until the
  // filter changes: the row the user just changed does not vanish from under them, and focus can go back to it.
  const filterKey = `${statusFilter}\n${search}`;
  const [kept, setKept] = useState({ filterKey, ids: noTasks });
  if (kept.filterKey !== filterKey) setKept({ filterKey, ids: noTasks });
  const keptIds = kept.filterKey === filterKey ? kept.ids : noTasks;
  const keep = useCallback(
    (id: string) => setKept((current) => ({ filterKey: current.filterKey, ids: new Set([...current.ids, id]) })),
    [],
  );
  const openStatus = useCallback(
    (task: { id: string }) => {
      keep(task.id);
      setOpen({ id: task.id, view: 'status' });
    },
    [keep],
  );
  const openDetail = useCallback(
    (task: { id: string }) => {
      keep(task.id);
      setOpen({ id: task.id, view: 'detail' });
    },
    [keep],
  );

  const mine = user ? tasksAssignedTo(tasks ?? [], user.id) : [];
  // The rows keep their places while the screen is open (the live list is newest first, so an update would move
  // its row to the top); new ones come first.
  const [order, setOrder] = useState<readonly string[]>([]);
  const nextOrder = keepOrder(
    order,
    mine.map((task) => task.id),
  );
  if (nextOrder !== order) setOrder(nextOrder);
  // Completed tasks before the device's window (issue 46) load from the server at the list's end.
  const older = useOlderCompletedTasks(tasks, user?.id);

  if (!user) return null;
  // The route is guarded; this covers a role that changed while the screen was open.
  if (!canOpenMyTasks(user)) return <AccessRestricted />;

  const actor = { id: user.id, role: user.role };
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
  const shown = filterTasks(inOrder(mine, nextOrder), search, statusFilter, keptIds);
  const olderInScope = statusFilter === 'all' || statusFilter === 'completed';
  const olderShown = olderInScope ? filterTasks(older.tasks, search, statusFilter, keptIds) : [];
  const olderEdge = olderInScope && older.more;
  const filtering = search.trim() !== '' || statusFilter !== 'all';
  // Looked up among all tasks: one reassigned while open stays visible, without the permission to change it.
  const openTask = open
    ? (tasks?.find((task) => task.id === open.id) ?? older.tasks.find((task) => task.id === open.id))
    : undefined;

  return (
    <div className={styles.page}>
      <PageHeader title="My Tasks & Projects" subtitle="Track and update your assigned task statuses" />

      <StatGrid label="My task overview" columns={6}>
        <StatCard icon={ClipboardList} label="Total Tasks" value={counts.total} tone="neutral" />
        <StatCard icon={statusIcons.pending} label="Pending" value={counts.pending} tone="amber" />
        <StatCard icon={statusIcons.working} label="Working" value={counts.working} tone="brand" />
        <StatCard icon={statusIcons.completed} label="Completed" value={counts.completed} tone="green" />
        <StatCard icon={statusIcons.waiting} label="Waiting" value={counts.waiting} tone="violet" />
        {counts.total === 0 ? (
          // No tasks, no rate: a neutral dash rather than a red 0%.
          <StatCard icon={Percent} label="Completion Rate" value="—" spokenValue="No tasks" tone="neutral">
            <span className={styles.noRate}>No tasks yet</span>
          </StatCard>
        ) : (
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
        )}
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
      ) : shown.length === 0 && olderShown.length === 0 && !olderEdge ? (
        <EmptyState
          variant="card"
          icon={filtering ? <SearchX size={28} /> : <ClipboardList size={28} />}
          title="No tasks found"
          text={filtering ? 'No tasks match your current filters.' : "You don't have any tasks assigned yet."}
          classNames={{ text: styles.emptyText }}
        />
      ) : (
        <>
          {shown.length + olderShown.length > 0 && (
            <ul className={styles.list} aria-label="My tasks">
              {[...shown, ...olderShown].map((task) => (
                <MyTaskItem
                  key={task.id}
                  task={task}
                  today={today}
                  now={now}
                  onOpen={openDetail}
                  onUpdateStatus={openStatus}
                />
              ))}
            </ul>
          )}
          {olderEdge && <OlderTasksEdge older={older} />}
        </>
      )}

      {openTask && open?.view === 'status' ? (
        <UpdateStatusModal key={openTask.id} task={openTask} actor={actor} onClose={closeModal} />
      ) : null}
      {openTask && open?.view === 'detail' ? (
        <TaskDetailModal key={openTask.id} task={openTask} actor={actor} people={people} onClose={closeModal} />
      ) : null}
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
