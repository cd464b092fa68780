import { z } from 'zod';
import { idSchema } from '../ids';
import { notificationTypes } from '../entities/notification';

/** POST /api/notifications: the sender is always the caller; the recipient must exist. */
export const sendNotificationArgsSchema = z.object({
  recipient: idSchema,
  type: z.enum(notificationTypes).default('custom'),
  title: z.string({ error: 'A title is required' }).trim().min(1, 'A title is required').max(200),
  message: z.string({ error: 'A message is required' }).trim().min(1, 'A message is required').max(1000),
  relatedTask: idSchema.nullable().optional(),
  data: z.record(z.string(), z.unknown()).default({}),
});
export type SendNotificationArgs = z.input<typeof sendNotificationArgsSchema>;
