import { useLiveQuery } from 'dexie-react-hooks';
import { isoToday, summarizeEmployees, type EmployeeSummary } from '@office/sync-protocol';
import { useWorkspace } from '../sync/sync-context';

/**
 * Employee Management's cards, computed on this device from IndexedDB (offline too) with the same
 * function as GET /api/employees: managers hold every task and the whole team chat locally.
 */
export function useEmployeeSummaries(): EmployeeSummary[] | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(async () => {
    const [people, tasks, messages] = await Promise.all([
      db.users.orderBy('name').toArray(),
      db.tasks.toArray(),
      db.chatMessages.toArray(),
    ]);
    const sent = new Map<string, number>();
    for (const message of messages) sent.set(message.userId.id, (sent.get(message.userId.id) ?? 0) + 1);
    return summarizeEmployees(people, tasks, sent, isoToday());
  }, [db]);
}
