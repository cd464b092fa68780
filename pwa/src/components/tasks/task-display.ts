import { taskStatuses, type TaskPriority, type TaskStatus } from '@office/sync-protocol';

/** An unknown status shows as pending (spec section 4). */
export const displayStatus = (status: string): TaskStatus =>
  (taskStatuses as readonly string[]).includes(status) ? (status as TaskStatus) : 'pending';

export const statusLabels: Record<TaskStatus, string> = {
  pending: 'Pending',
  working: 'Working',
  completed: 'Completed',
  waiting: 'Waiting',
};

export const priorityLabels: Record<TaskPriority, string> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  critical: 'Critical',
};

/** Completion-rate colour of spec section 4: green at 80 or above, amber at 60 or above, red below. */
export const completionTone = (rate: number): 'good' | 'fair' | 'poor' =>
  rate >= 80 ? 'good' : rate >= 60 ? 'fair' : 'poor';
