import { CheckCircle2, Clock, Hourglass, PlayCircle, type LucideIcon } from 'lucide-react';
import type { TaskStatus } from '@office/sync-protocol';

/** The icon of each task status, the same on the stat cards and the status tiles. */
export const statusIcons: Record<TaskStatus, LucideIcon> = {
  pending: Clock,
  working: PlayCircle,
  completed: CheckCircle2,
  waiting: Hourglass,
};
