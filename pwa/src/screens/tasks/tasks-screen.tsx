import { useCallback, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { ClipboardList, Plus, X } from 'lucide-react';
import { SearchField } from '../../components/search-field';
import { canManageTasks, taskStatuses, type Actor, type TaskStatus } from '@office/sync-protocol';
import { usePeople } from '../../data/use-people';
import { useAuth } from '../../app/auth/use-auth';
import { Button } from '../../components/button';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { useNow } from '../../components/use-now';
import { useWhenVisible } from '../../components/use-when-visible';
import { useOlderCompletedTasks } from '../../components/tasks/older-tasks';
import { OlderTasksEdge } from '../../components/tasks/older-tasks-edge';
import { statusLabels } from '../../components/tasks/task-display';
import { useTasks, useToday } from '../../data/hooks';
import { useWorkspace } from '../../sync/sync-context';
import { CreateTaskModal } from './create-task-modal';
import { useDeleteTask } from './task-actions';
import { TaskCard } from './task-card';
import { TaskDetailModal } from './task-detail-modal';
import { emptyStateText, filterTasks, showMoreTasksLabel, taskPageSize, type TaskFilters } from './task-filters';
import styles from './tasks.module.css';

const isTaskStatus = (value: string): value is TaskStatus => (taskStatuses as readonly string[]).includes(value);

/**
 * Task Management (/tasks): reads the local database, so it works the same offline. Completed tasks older than the
 * device's window (issue 46) are counted by the server and load from it at the list's end while online.
 */
export function TasksScreen() {
  const { user } = useAuth();
  const { ctx } = useWorkspace();
  const tasks = useTasks();
  const people = usePeople();
  const today = useToday();
  const now = useNow().getTime();
  const deleteTask = useDeleteTask();
  const [searchParams, setSearchParams] = useSearchParams();

  const [search, setSearch] = useState('');
  // The status filter lives in the address (?status=pending), so the dashboard's cards can link to it.
  const statusParam = searchParams.get('status') ?? '';
  const status: TaskStatus | '' = isTaskStatus(statusParam) ? statusParam : '';
  const [creating, setCreating] = useState(false);
  // `?task=<id>` (a notification's link) opens that task's detail, also while this screen is open.
  const taskParam = searchParams.get('task');
  const [openTaskId, setOpenTaskId] = useState<string | null>(taskParam);
  const [seenTaskParam, setSeenTaskParam] = useState(taskParam);
  if (taskParam !== seenTaskParam) {
    setSeenTaskParam(taskParam);
    if (taskParam !== null) setOpenTaskId(taskParam);
  }

  const actor: Actor = { id: ctx.userId, role: user?.role ?? 'employee' };
  const isManager = canManageTasks(actor);
  const overdueOnly = searchParams.get('filter') === 'overdue';
  const filters: TaskFilters = useMemo(() => ({ search, status, overdueOnly }), [search, status, overdueOnly]);
  const filtersActive = search.trim() !== '' || status !== '' || overdueOnly;

  const shown = useMemo(() => (tasks ? filterTasks(tasks, filters, today) : []), [tasks, filters, today]);
  const older = useOlderCompletedTasks(tasks);
  // Older tasks are all completed: the list reaches for them unless its filters leave completed tasks out.
  const olderInScope = (status === '' || status === 'completed') && !overdueOnly;
  const olderShown = useMemo(
    () => (olderInScope ? filterTasks(older.tasks, filters, today) : []),
    [olderInScope, older.tasks, filters, today],
  );
  const olderEdge = olderInScope && older.more;
  // Counted as the dashboard counts them: what the device holds and what the server holds before its window.
  const total = (tasks?.length ?? 0) + older.notHeld;
  const matching = shown.length + (olderInScope && search.trim() === '' ? older.notHeld : olderShown.length);
  // Cards render a page at a time; other filters start again from the first page.
  const [page, setPage] = useState({ filters, count: taskPageSize });
  const cardCount = page.filters === filters ? page.count : taskPageSize;
  const cards = shown.slice(0, cardCount);
  const remaining = shown.length - cards.length;
  // The older ones come after every task the device holds (they were changed before all of them).
  const olderCards = remaining === 0 ? olderShown : [];
  const showMore = useCallback(() => setPage({ filters, count: cardCount + taskPageSize }), [filters, cardCount]);
  const showMoreWhenVisible = useWhenVisible(showMore);
  // The open task is read from the live list: it follows every change and closes if the task goes away.
  const openTask =
    openTaskId === null
      ? undefined
      : (tasks?.find((task) => task.id === openTaskId) ?? older.tasks.find((task) => task.id === openTaskId));

  const handleOpen = useCallback((taskId: string) => setOpenTaskId(taskId), []);
  const handleCloseDetail = useCallback(() => {
    setOpenTaskId(null);
    if (taskParam === null) return;
    setSearchParams(
      (params) => {
        const next = new URLSearchParams(params);
        next.delete('task');
        return next;
      },
      { replace: true },
    );
  }, [taskParam, setSearchParams]);
  const handleCloseCreate = useCallback(() => setCreating(false), []);
  const handleCreated = useCallback(() => setCreating(false), []);
  const { forget } = older;
  const handleDelete = useCallback(
    (taskId: string) => {
      void deleteTask(taskId).then((deleted) => {
        if (!deleted) return;
        forget(taskId);
        setOpenTaskId((current) => (current === taskId ? null : current));
      });
    },
    [deleteTask, forget],
  );

  /** Sets (a string) or removes (null) the given query parameters, leaving the others. */
  const setQuery = (changes: Partial<Record<'filter' | 'status', string | null>>) =>
    setSearchParams(
      (params) => {
        const next = new URLSearchParams(params);
        for (const [key, value] of Object.entries(changes)) {
          if (value === null) next.delete(key);
          else next.set(key, value);
        }
        return next;
      },
      { replace: true },
    );
  const setStatus = (value: TaskStatus | '') => setQuery({ status: value === '' ? null : value });
  const clearOverdue = () => setQuery({ filter: null });
  const clearFilters = () => {
    setSearch('');
    setQuery({ filter: null, status: null });
  };

  const subtitle = isManager
    ? "Create, assign and track your team's work."
    : 'Tasks assigned to you or created by you.';

  return (
    <div className={styles.page}>
      <PageHeader
        title="Task Management"
        subtitle={subtitle}
        actions={
          isManager ? (
            <Button onClick={() => setCreating(true)}>
              <Plus size={18} aria-hidden="true" />
              Create Task
            </Button>
          ) : undefined
        }
      />

      <div className={styles.toolbar}>
        <SearchField placeholder="Search tasks..." value={search} onValueChange={setSearch} />
        <select
          className={`${styles.select} ${styles.filterSelect}`}
          aria-label="Filter by status"
          value={status}
          onChange={(event) => setStatus(isTaskStatus(event.target.value) ? event.target.value : '')}
        >
          <option value="">All Tasks</option>
          {taskStatuses.map((value) => (
            <option key={value} value={value}>
              {statusLabels[value]}
            </option>
          ))}
        </select>
      </div>

      {(overdueOnly || (tasks !== undefined && total > 0)) && (
        <div className={styles.resultBar}>
          <p className={styles.resultCount} aria-live="polite">
            {tasks === undefined
              ? ''
              : filtersActive
                ? `Showing ${matching} of ${total} ${total === 1 ? 'task' : 'tasks'}`
                : `${total} ${total === 1 ? 'task' : 'tasks'}`}
          </p>
          {overdueOnly && (
            <span className={styles.chip}>
              Overdue
              <button
                type="button"
                className={styles.chipRemove}
                aria-label="Remove Overdue filter"
                onClick={clearOverdue}
              >
                <X size={14} aria-hidden="true" />
              </button>
            </span>
          )}
        </div>
      )}

      {tasks === undefined ? (
        <p className={styles.loading} role="status">
          Loading tasks...
        </p>
      ) : shown.length === 0 && olderShown.length === 0 && !olderEdge ? (
        <EmptyState
          variant="card"
          icon={<ClipboardList size={28} />}
          title="No tasks found"
          text={emptyStateText(total, filters)}
          classNames={{ text: styles.emptyText }}
        >
          {total > 0 && filtersActive ? (
            <Button variant="secondary" size="small" onClick={clearFilters}>
              Clear filters
            </Button>
          ) : total === 0 && isManager ? (
            <Button size="small" onClick={() => setCreating(true)}>
              <Plus size={16} aria-hidden="true" />
              Create your first task
            </Button>
          ) : null}
        </EmptyState>
      ) : (
        <>
          {cards.length + olderCards.length > 0 && (
            <ul className={styles.grid} aria-label="Tasks">
              {[...cards, ...olderCards].map((task) => (
                <li key={task.id} className={styles.gridItem}>
                  <TaskCard
                    task={task}
                    today={today}
                    now={now}
                    people={people}
                    canDelete={isManager}
                    onOpen={handleOpen}
                    onDelete={handleDelete}
                  />
                </li>
              ))}
            </ul>
          )}
          {remaining > 0 && (
            <div ref={showMoreWhenVisible} className={styles.more}>
              <Button variant="secondary" onClick={showMore}>
                {showMoreTasksLabel(remaining)}
              </Button>
            </div>
          )}
          {remaining === 0 && olderEdge && <OlderTasksEdge older={older} />}
        </>
      )}

      {creating && <CreateTaskModal onClose={handleCloseCreate} onCreated={handleCreated} />}
      {openTask !== undefined && (
        <TaskDetailModal
          task={openTask}
          actor={actor}
          people={people}
          onClose={handleCloseDetail}
          onDelete={handleDelete}
        />
      )}
    </div>
  );
}
