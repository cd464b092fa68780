import { z } from 'zod';
import { idSchema } from '../ids';
import { cutText } from '../dates';

/** Kinds of notification the server creates. */
export const notificationTypes = [
  'task_assigned',
  'task_updated',
  'task_comment',
  'task_due_soon',
  'task_overdue',
  'chat_message',
  'direct_message',
  'mention',
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

/**
 * One person's read state of their notifications (its id is theirs). Team chat notices are not stored per
 * person: each team chat message by someone else since `chatSince` is one, read when it is at or before
 * `readThrough` or listed in `chatReads`. Every stored notification at or before `readThrough` is read too.
 */
export const notificationMarkerSchema = z.object({
  _id: idSchema,
  id: idSchema,
  /** Team chat notices start here: when the person joined. */
  chatSince: z.string(),
  /** Everything up to this time is read ("Mark all as read"); null before the first. */
  readThrough: z.string().nullable(),
  /** Team chat notices after `readThrough` read one by one. */
  chatReads: z.array(idSchema),
  version: z.number().int(),
});
export type NotificationMarker = z.infer<typeof notificationMarkerSchema>;

/** Chat texts are cut to this many characters in notifications (spec section 9). */
export const CHAT_NOTICE_CUT = 50;

/** What a team chat notice is made from: the message and its author. */
export interface ChatNoticeSource {
  id: string;
  text: string;
  createdAt: string;
  version: number;
  author: { id: string; name: string };
}

/** Whether a notice of this time is read by the marker alone ("Mark all as read"). */
export const readByMarker = (marker: Pick<NotificationMarker, 'readThrough'>, createdAt: string): boolean =>
  marker.readThrough !== null && createdAt <= marker.readThrough;

/**
 * The team chat notice of `recipient` about one message (spec section 4: "a chat message is sent, text cut to
 * 50 characters"), as the server lists it and the device derives it; its id is the message's.
 */
export function chatNotice(
  source: ChatNoticeSource,
  marker: Pick<NotificationMarker, 'id' | 'readThrough' | 'chatReads'>,
): Notification {
  return {
    _id: source.id,
    id: source.id,
    recipient: marker.id,
    sender: { _id: source.author.id, id: source.author.id, name: source.author.name },
    type: 'chat_message',
    title: `New message from ${source.author.name}`,
    message: source.text ? cutText(source.text, CHAT_NOTICE_CUT) : 'Shared files',
    relatedTask: null,
    data: { messageId: source.id },
    read: readByMarker(marker, source.createdAt) || marker.chatReads.includes(source.id),
    createdAt: source.createdAt,
    version: source.version,
  };
}

/** Where a mention was written: the team chat or a direct message. */
export type MentionPlace = 'chat' | 'direct';

/** The title of a `mention` notification: "Bob Smith mentioned you in Team Chat" or "... in a direct message". */
export const mentionTitle = (authorName: string, place: MentionPlace): string =>
  `${authorName} mentioned you in ${place === 'chat' ? 'Team Chat' : 'a direct message'}`;
