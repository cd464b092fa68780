import { useCallback, useMemo, useRef, useState } from 'react';
import { olderTasksPageSchema, type OlderTasksPage, type Task } from '@office/sync-protocol';
import { api } from '../../api/http';
import type { LocalTask, TaskWindowState } from '../../data/db';
import { useOnline, useTaskWindow } from '../../data/hooks';
import type { HistoryLoad } from '../../sync/history';
import { completedBefore } from '../../sync/window';

// Issue 46: a device holds the completed tasks of its window only; the server counts the older ones
// (POST /api/sync/window-counts) and gives them a page at a time (GET /api/tasks?status=completed&before=). A task
// list reaches for them at its end while online; they stay in memory for the visit, never in IndexedDB, so the
// dashboard's counts (held rows plus the server's figure) never count one twice.

/** How many older completed tasks a page brings. */
export const olderTasksPageSize = 50;

/** Where a task list ends when older completed tasks lie on the server. */
export const olderTasksTexts = {
  offline: 'Older completed tasks are not saved on this device. Connect to the internet to load them.',
  loading: 'Loading older completed tasks...',
  failed: 'Older completed tasks could not be loaded.',
  load: 'Load older completed tasks',
} as const;

/**
 * How many completed tasks before the window's edge the device does not hold (of one assignee, or all): the
 * server's count less those still held there (until evicted), as the dashboard counts them (task-overview.ts).
 */
export function completedNotHeld(
  held: readonly Pick<LocalTask, 'status' | 'updatedAt' | 'assignedTo'>[],
  window: TaskWindowState,
  assigneeId?: string,
): number {
  const { edge } = window;
  if (edge === null || window.before === null) return 0;
  const counted = assigneeId === undefined ? window.before.completed : completedBefore(window, assigneeId);
  const heldBefore = held.filter(
    (task) =>
      task.status === 'completed' &&
      task.updatedAt < edge &&
      (assigneeId === undefined || task.assignedTo?.id === assigneeId),
  ).length;
  return Math.max(0, counted - heldBefore);
}

/** The older tasks loaded that the device does not hold (one it holds is shown as it holds it), newest first. */
export const notHeldAmong = <T extends { id: string }>(loaded: readonly T[], held: readonly { id: string }[]): T[] => {
  const heldIds = new Set(held.map((task) => task.id));
  return loaded.filter((task) => !heldIds.has(task.id));
};

/** The query of the page after `page` (the first: everything before the window's edge). */
export function olderTasksQuery(edge: string, page: OlderTasksPage | null): URLSearchParams {
  const place = page?.next ?? { before: edge };
  return new URLSearchParams({ status: 'completed', limit: String(olderTasksPageSize), ...place });
}

const fetchOlderTasks = (query: URLSearchParams): Promise<OlderTasksPage> =>
  api.get(`/tasks?${query.toString()}`, { answer: olderTasksPageSchema });

/** What a task list knows of the completed tasks before the device's window. */
export interface OlderCompletedTasks {
  /** Loaded this visit and not held on the device, newest first. */
  tasks: LocalTask[];
  /** How many the device does not hold (loaded ones among them), as the server counted them. */
  notHeld: number;
  /** More lie on the server than loaded so far. */
  more: boolean;
  online: boolean;
  load: HistoryLoad;
  loadOlder: () => void;
  /** Leaves a loaded task out (deleted from here). */
  forget: (id: string) => void;
}

interface Loaded {
  edge: string | null;
  tasks: Task[];
  last: OlderTasksPage | null;
  load: HistoryLoad;
}

const nothingLoaded = (edge: string | null): Loaded => ({ edge, tasks: [], last: null, load: 'idle' });

/**
 * The completed tasks before the device's task window (all the person sees, or those assigned to `assigneeId`),
 * loaded a page at a time from the server on demand.
 */
export function useOlderCompletedTasks(
  held: readonly LocalTask[] | undefined,
  assigneeId?: string,
): OlderCompletedTasks {
  const window = useTaskWindow();
  const online = useOnline();
  const edge = window?.edge ?? null;
  const [loaded, setLoaded] = useState<Loaded>(() => nothingLoaded(edge));
  // Another edge (the window moved): what was loaded before it is read again from its new place.
  const current = loaded.edge === edge ? loaded : nothingLoaded(edge);
  if (current !== loaded) setLoaded(current);
  // The place reached, read and written outside renders: a load the list asks for twice before the answer
  // re-renders it (a click and the edge scrolling into view) reads the next page once, never one again.
  const reading = useRef<{ edge: string | null; last: OlderTasksPage | null; busy: boolean }>({
    edge: null,
    last: null,
    busy: false,
  });

  const notHeld = window && held ? completedNotHeld(held, window, assigneeId) : 0;
  const more = edge !== null && notHeld > 0 && (current.last === null || current.last.next !== null);

  const loadOlder = useCallback(() => {
    if (edge === null || !more) return;
    if (reading.current.edge !== edge) reading.current = { edge, last: null, busy: false };
    const place = reading.current;
    if (place.busy || place.last?.next === null) return;
    place.busy = true;
    setLoaded((state) => ({ ...state, load: 'loading' }));
    fetchOlderTasks(olderTasksQuery(edge, place.last))
      .then((page) => {
        place.last = page;
        setLoaded((state) => {
          if (state.edge !== edge) return state;
          const known = new Set(state.tasks.map((task) => task.id));
          return {
            edge,
            tasks: [...state.tasks, ...page.tasks.filter((t) => !known.has(t.id))],
            last: page,
            load: 'idle',
          };
        });
      })
      .catch((error: unknown) => {
        console.warn('Loading older completed tasks failed', error);
        setLoaded((state) => (state.edge === edge ? { ...state, load: 'failed' } : state));
      })
      .finally(() => {
        place.busy = false;
      });
  }, [edge, more]);

  const forget = useCallback(
    (id: string) => setLoaded((state) => ({ ...state, tasks: state.tasks.filter((task) => task.id !== id) })),
    [],
  );
  const tasks = useMemo(
    () =>
      notHeldAmong(current.tasks, held ?? []).filter(
        (task) => assigneeId === undefined || task.assignedTo?.id === assigneeId,
      ),
    [current.tasks, held, assigneeId],
  );
  return { tasks, notHeld, more, online, load: current.load, loadOlder, forget };
}
