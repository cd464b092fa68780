import { z } from 'zod';
import { idSchema } from '../ids';
import { chatLimits } from './chat';
import { quietHoursSchema, teamChatNoticeLevels, timeZoneSchema } from '../entities/notification';

/** Refusals of POST /api/notifications. */
export const notificationTexts = {
  directOnly: 'Only direct message notifications can be sent.',
  messageRequired: 'A notification names the direct message it is about (data.messageId and data.conversationId).',
  specFieldsOnly: 'A notification’s data holds messageId, conversationId, messageText, senderName and timestamp only.',
  notYourMessage: 'You can only notify about a direct message you sent.',
  notTheRecipient: 'The recipient must be the other participant of the conversation.',
} as const;

/**
 * POST /api/notifications, as the spec's client sends it after a direct message: only `direct_message`, about a
 * message the caller sent, to the other participant. Title, message and data are built by the server (spec
 * section 7); `sender`, `title` and `message` may come and are ignored, `data` holds the spec's fields only.
 */
export const sendNotificationArgsSchema = z.object({
  recipient: idSchema,
  type: z.literal('direct_message', { error: notificationTexts.directOnly }),
  sender: z.unknown().optional(),
  title: z.string().max(200).optional(),
  message: z
    .string()
    .max(chatLimits.textMax + 3)
    .optional(),
  relatedTask: z.null().optional(),
  data: z.strictObject(
    {
      messageId: z.string({ error: notificationTexts.messageRequired }).pipe(idSchema),
      conversationId: z.string({ error: notificationTexts.messageRequired }).pipe(idSchema),
      messageText: z.string().max(chatLimits.textMax).optional(),
      senderName: z.string().max(200).optional(),
      timestamp: z.string().max(64).optional(),
    },
    { error: notificationTexts.specFieldsOnly },
  ),
});
export type SendNotificationArgs = z.input<typeof sendNotificationArgsSchema>;

/** `notification.markRead`: PATCH /api/notifications/{id}/read and its sync mutation; the recipient's own only. */
export const markNotificationReadArgsSchema = z.object({ id: idSchema });
export type MarkNotificationReadArgs = z.input<typeof markNotificationReadArgsSchema>;

/** `notification.markAllRead`: PATCH /api/notifications/read-all; `through` bounds it to what the user had seen. */
export const markAllNotificationsReadArgsSchema = z.object({ through: z.iso.datetime({ offset: true }).optional() });
export type MarkAllNotificationsReadArgs = z.input<typeof markAllNotificationsReadArgsSchema>;

/**
 * `notification.setPreferences`: PUT /api/notifications/preferences and its sync mutation. Only what is given
 * changes; `timeZone` is the browser's, sent by the device itself.
 */
export const setNotificationPreferencesArgsSchema = z.strictObject({
  teamChat: z.enum(teamChatNoticeLevels).optional(),
  directMessages: z.boolean().optional(),
  taskNotices: z.boolean().optional(),
  morningDigest: z.boolean().optional(),
  quietHours: quietHoursSchema.nullable().optional(),
  timeZone: timeZoneSchema.optional(),
});
export type SetNotificationPreferencesArgs = z.input<typeof setNotificationPreferencesArgsSchema>;

/** GET /api/notifications query: newest first; `before` is the id of the previous page's last notification. */
export const notificationsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  before: idSchema.optional(),
});

/** A browser's push subscription (PushSubscription.toJSON()). */
export const pushSubscriptionSchema = z.object({
  endpoint: z.url({ protocol: /^https?$/ }).max(2048),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: z.string().min(1).max(512), auth: z.string().min(1).max(256) }),
});
export type PushSubscriptionInput = z.infer<typeof pushSubscriptionSchema>;

/** What a push message carries to the service worker. */
export const pushPayloadSchema = z.object({
  title: z.string(),
  body: z.string(),
  /** Where a click on the system notification leads, inside the app. */
  url: z.string(),
  /** Notifications with the same tag replace each other (a busy chat does not flood a phone). */
  tag: z.string(),
  notificationId: idSchema,
});
export type PushPayload = z.infer<typeof pushPayloadSchema>;

/** Where a notification leads inside the app. */
export function notificationUrl(notification: {
  type: string;
  relatedTask: string | null;
  data: Record<string, unknown>;
}): string {
  if (notification.relatedTask) return `/tasks?task=${notification.relatedTask}`;
  const conversationId = notification.data.conversationId;
  if (notification.type === 'direct_message' && typeof conversationId === 'string')
    return `/direct-messages?conversation=${conversationId}`;
  if (notification.type === 'mention') {
    // A mention opens its message, as a search result does.
    const messageId = notification.data.messageId;
    const at = typeof messageId === 'string' ? `message=${messageId}` : '';
    if (typeof conversationId === 'string')
      return `/direct-messages?conversation=${conversationId}${at ? `&${at}` : ''}`;
    return at ? `/chat?${at}` : '/chat';
  }
  if (notification.type === 'chat_message') return '/chat';
  if (notification.type === 'digest') return '/my-tasks';
  return '/dashboard';
}
