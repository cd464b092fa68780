import { readByMarker, teamChatKey, type PullResponse } from '@office/sync-protocol';
import type {
  HeldSpan,
  HistoryRange,
  LocalChatMessage,
  LocalDirectMessage,
  LocalNotification,
  LocalTask,
  TaskWindowState,
  WorkspaceDb,
} from '../data/db';
import { readCursor } from './meta';

// Issue 46: a device holds a window of the history, not all of it. A change the server sends of a row the device
// does not hold is stored only when it falls inside what the device holds whole (research/partial-sync.md §3.1):
// the cursor moves on either way, so a row evicted or never fetched stays out, and a held one stays current.

/** The whole history: what the device holds of a conversation it has no range of. */
const wholeSpans: HeldSpan[] = [{ from: '', to: null }];

/** The range of a conversation as the device holds it (without a row: its whole history, all of it the window). */
export const rangeOrWhole = (range: HistoryRange | undefined, key: string): HistoryRange =>
  range ?? { key, edge: null, spans: wholeSpans, before: null, stale: false, viewedAt: null };

/** Whether the device holds every message of this time (it lies in a span held whole). */
export const spansHold = (spans: readonly HeldSpan[], time: string): boolean =>
  spans.some((span) => span.from <= time && (span.to === null || time <= span.to));

/** Whether the device holds the conversation from its first message on. */
export const holdsBeginning = (range: HistoryRange | undefined): boolean => (range?.spans[0]?.from ?? '') === '';

/** The device's task window (without one: it holds every task it may see). */
export async function readTaskWindow(db: WorkspaceDb): Promise<TaskWindowState> {
  const row = await db.meta.get('taskWindow');
  return row?.key === 'taskWindow' ? row.value : { edge: null, before: null, stale: false };
}

/** Whether a held task counts on the device: open, or completed inside the window (the server counts the rest). */
export const countedOnDevice = (task: Pick<LocalTask, 'status' | 'updatedAt'>, window: TaskWindowState): boolean =>
  window.edge === null || task.status !== 'completed' || task.updatedAt >= window.edge;

/** How many completed tasks of this assignee lie before the task window's edge, as the server counted them. */
export const completedBefore = (window: TaskWindowState, assigneeId: string): number =>
  window.edge === null ? 0 : (window.before?.byAssignee[assigneeId] ?? 0);

/** A device still on its first download: its cursor is 0 until the last page is in. */
export const isBootstrapping = async (db: WorkspaceDb): Promise<boolean> => (await readCursor(db)) === 0;

type Row = { id: string; version?: number };

/**
 * Which of these rows, none of them on the device, the device takes in: those inside what it holds whole. A row
 * outside is left out; a change before a window's edge marks what the server counted there as stale (counted again
 * when online). While the first download runs, a live change of a message it has not brought yet waits for the pull
 * after the last page, which brings it if it belongs in the window.
 */
export async function admitUnheld(db: WorkspaceDb, table: string, rows: Row[], bootstrapping: boolean): Promise<Row[]> {
  if (rows.length === 0) return rows;
  switch (table) {
    case 'chatMessages': {
      if (bootstrapping) return [];
      const range = rangeOrWhole(await db.historyRanges.get(teamChatKey), teamChatKey);
      const times = (rows as LocalChatMessage[]).map((row) => row.timestamp);
      if (range.edge !== null && times.some((time) => time < (range.edge ?? ''))) await markStale(db, [teamChatKey]);
      return rows.filter((_row, i) => spansHold(range.spans, times[i] ?? ''));
    }
    case 'directMessages': {
      if (bootstrapping) return [];
      const messages = rows as LocalDirectMessage[];
      const keys = [...new Set(messages.map((message) => message.conversationId))];
      const found = new Map(
        (await db.historyRanges.bulkGet(keys)).flatMap((range) => (range ? [[range.key, range] as const] : [])),
      );
      const rangeOf = (key: string) => rangeOrWhole(found.get(key), key);
      const stale = messages.filter((message) => {
        const { edge } = rangeOf(message.conversationId);
        return edge !== null && message.createdAt < edge;
      });
      await markStale(db, [...new Set(stale.map((message) => message.conversationId))]);
      return messages.filter((message) => spansHold(rangeOf(message.conversationId).spans, message.createdAt));
    }
    case 'tasks': {
      const window = await readTaskWindow(db);
      const { edge } = window;
      if (edge === null) return rows;
      const tasks = rows as LocalTask[];
      // An older task may have been counted before the edge (completed then): it is counted again.
      if (tasks.some((task) => task.createdAt < edge)) await writeTaskWindow(db, { ...window, stale: true });
      return tasks.filter((task) => task.status !== 'completed' || task.updatedAt >= edge);
    }
    case 'notifications': {
      // Unread ones always (the bell counts them); read ones among the newest the device holds.
      const oldest = await db.notifications.orderBy('createdAt').first();
      // The device holds its person's marker alone.
      const marker = await db.notificationMarkers.toCollection().first();
      return (rows as LocalNotification[]).filter(
        (notice) =>
          oldest === undefined ||
          notice.createdAt >= oldest.createdAt ||
          (!notice.read && !(marker && readByMarker(marker, notice.createdAt))),
      );
    }
    default:
      return rows;
  }
}

/** A delete of rows the device does not hold: they lay before its window, where the server's counts change. */
export async function noteUnheldDeletes(db: WorkspaceDb, table: string, bootstrapping: boolean): Promise<void> {
  if (bootstrapping) return;
  if (table === 'chatMessages') await markStale(db, [teamChatKey]);
  if (table === 'directMessages') {
    // The delete does not say which conversation it was in.
    const trimmed = await db.historyRanges.filter((range) => range.key !== teamChatKey && range.edge !== null).keys();
    await markStale(db, trimmed.map(String));
  }
  if (table === 'tasks') {
    const window = await readTaskWindow(db);
    if (window.edge !== null) await writeTaskWindow(db, { ...window, stale: true });
  }
}

async function markStale(db: WorkspaceDb, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const ranges = await db.historyRanges.bulkGet([...keys]);
  const trimmed = ranges.filter((range): range is HistoryRange => range !== undefined && range.edge !== null);
  if (trimmed.length) await db.historyRanges.bulkPut(trimmed.map((range) => ({ ...range, stale: true })));
}

export const writeTaskWindow = (db: WorkspaceDb, value: TaskWindowState) => db.meta.put({ key: 'taskWindow', value });

/**
 * What a bootstrap page says of the window: the conversations it holds whole, and on the last page where each
 * window starts (its oldest message held: the server sent every message from that time on) and where the completed
 * tasks end. Until the server counts what lies before them, only the rows held are counted.
 */
export async function settleBootstrapWindow(db: WorkspaceDb, page: PullResponse): Promise<void> {
  await db.meta.put({ key: 'window', value: page.window });
  if (!page.bootstrap) return;
  for (const key of page.bootstrap.historyStarts) await db.historyRanges.put(rangeOrWhole(undefined, key));
  if (page.bootstrap.next !== null) return;
  const oldestChat = await db.chatMessages.orderBy('timestamp').first();
  if (oldestChat && !(await db.historyRanges.get(teamChatKey)))
    await putWindowFrom(db, teamChatKey, oldestChat.timestamp);
  for (const conversationId of await db.conversations.toCollection().primaryKeys()) {
    if (await db.historyRanges.get(conversationId)) continue;
    const oldest = await db.directMessages
      .where('[conversationId+createdAt]')
      .between([conversationId, ''], [conversationId, '\uffff'])
      .first();
    if (oldest) await putWindowFrom(db, conversationId, oldest.createdAt);
  }
  await writeTaskWindow(db, { edge: page.window.completedSince, before: null, stale: false });
}

const putWindowFrom = (db: WorkspaceDb, key: string, from: string) =>
  db.historyRanges.put({ key, edge: from, spans: [{ from, to: null }], before: null, stale: false, viewedAt: null });
