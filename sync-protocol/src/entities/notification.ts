import { z } from 'zod';
import { idSchema } from '../ids';

/** Kinds of notification the server creates. */
export const notificationTypes = [
  'task_assigned',
  'task_updated',
  'task_comment',
  'task_due_soon',
  'task_overdue',
  'chat_message',
  'direct_message',
  'custom',
] as const;
export type NotificationType = (typeof notificationTypes)[number];

/** A notification for one recipient (spec section 3). */
export const notificationSchema = z.object({
  _id: idSchema,
  id: idSchema,
  recipient: idSchema,
  sender: z.object({ _id: idSchema, id: idSchema, name: z.string() }).nullable(),
  type: z.enum(notificationTypes),
  title: z.string(),
  message: z.string(),
  relatedTask: idSchema.nullable(),
  data: z.record(z.string(), z.unknown()),
  read: z.boolean(),
  createdAt: z.string(),
  version: z.number().int(),
});
export type Notification = z.infer<typeof notificationSchema>;
