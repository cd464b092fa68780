import { HistoryEdge } from '../messages/history-edge';
import { olderTasksTexts, type OlderCompletedTasks } from './older-tasks';

/** Where a task list ends while older completed tasks lie on the server: loads them online, says so offline. */
export function OlderTasksEdge({ older }: { older: OlderCompletedTasks }) {
  return (
    <HistoryEdge
      side="older"
      canLoad={older.online}
      load={older.load}
      onLoad={older.loadOlder}
      olderTexts={olderTasksTexts}
      olderBelow
    />
  );
}
