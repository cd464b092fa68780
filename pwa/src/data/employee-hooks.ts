import { useLiveQuery } from 'dexie-react-hooks';
import { isoToday, summarizeEmployees, teamChatKey, type EmployeeSummary } from '@office/sync-protocol';
import { useWorkspace } from '../sync/sync-context';
import { countedOnDevice, readTaskWindow } from '../sync/window';

/**
 * Employee Management's cards, computed on this device from IndexedDB (offline too) with the same
 * function as GET /api/employees. A manager holds every open task and the window of the team chat and of the
 * completed tasks (issue 46); what lies before the window's edges comes from the server's counts.
 */
export function useEmployeeSummaries(): EmployeeSummary[] | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(async () => {
    const [people, tasks, chat, window] = await Promise.all([
      db.users.orderBy('name').toArray(),
      db.tasks.toArray(),
      db.historyRanges.get(teamChatKey),
      readTaskWindow(db),
    ]);
    const edge = chat?.edge ?? null;
    const messages = await (edge === null
      ? db.chatMessages.toArray()
      : db.chatMessages.where('timestamp').aboveOrEqual(edge).toArray());
    const sent = new Map(Object.entries(edge === null ? {} : (chat?.before?.byAuthor ?? {})));
    for (const message of messages) sent.set(message.userId.id, (sent.get(message.userId.id) ?? 0) + 1);
    // Completed tasks before the task window's edge are the server's to count, held or not.
    const counted = tasks.filter((task) => countedOnDevice(task, window));
    const completedBefore = new Map(Object.entries(window.edge === null ? {} : (window.before?.byAssignee ?? {})));
    return summarizeEmployees(people, counted, sent, isoToday(), completedBefore);
  }, [db]);
}
