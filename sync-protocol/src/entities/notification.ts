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
  'digest',
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

/** Which team chat messages are a person's notices: every one (the spec's behaviour), mentions only, or none. */
export const teamChatNoticeLevels = ['all', 'mentions', 'none'] as const;
export type TeamChatNoticeLevel = (typeof teamChatNoticeLevels)[number];

/** Refusals of a notification preferences change. */
export const preferenceTexts = {
  clockTime: 'Use a time like 22:00.',
  quietHoursSame: 'Quiet hours must start and end at different times.',
  timeZone: 'Unknown time zone.',
} as const;

/** A time of day, "HH:MM" on a 24-hour clock. */
export const clockTimeSchema = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, preferenceTexts.clockTime);

const knownTimeZone = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

/** An IANA time zone the runtime knows ("Europe/Berlin"). */
export const timeZoneSchema = z.string().max(64).refine(knownTimeZone, preferenceTexts.timeZone);

/** No push between `from` and `to` in the person's time zone (over midnight when `from` is later). */
export const quietHoursSchema = z
  .object({ from: clockTimeSchema, to: clockTimeSchema })
  .refine((hours) => hours.from !== hours.to, preferenceTexts.quietHoursSame);
export type QuietHours = z.infer<typeof quietHoursSchema>;

/**
 * One person's notification preferences (its id is theirs). What each turns off is neither in the bell nor
 * pushed; mentions and the morning digest's own switch aside, task and direct message notices follow theirs.
 * `timeZone` comes from the person's browser: quiet hours and the 08:00 digest are in it.
 */
export const notificationPreferencesSchema = z.object({
  _id: idSchema,
  id: idSchema,
  teamChat: z.enum(teamChatNoticeLevels),
  directMessages: z.boolean(),
  taskNotices: z.boolean(),
  morningDigest: z.boolean(),
  quietHours: quietHoursSchema.nullable(),
  timeZone: z.string().nullable(),
  version: z.number().int(),
});
export type NotificationPreferences = z.infer<typeof notificationPreferencesSchema>;

/** The spec's behaviour: everything on, no quiet hours; what a person has before they change anything. */
export const defaultNotificationPreferences = (id: string): NotificationPreferences => ({
  _id: id,
  id,
  teamChat: 'all',
  directMessages: true,
  taskNotices: true,
  morningDigest: true,
  quietHours: null,
  timeZone: null,
  version: 0,
});

/** The preference a stored notice of this type follows; null: always delivered (mentions, custom). */
export function preferenceOf(type: NotificationType): 'directMessages' | 'taskNotices' | 'morningDigest' | null {
  switch (type) {
    case 'direct_message':
      return 'directMessages';
    case 'task_assigned':
    case 'task_updated':
    case 'task_comment':
    case 'task_due_soon':
    case 'task_overdue':
      return 'taskNotices';
    case 'digest':
      return 'morningDigest';
    default:
      return null;
  }
}

/** Minutes since midnight of a "HH:MM" time. */
const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/** The wall-clock time at `at` in `timeZone`, in minutes since midnight. */
export function minutesInZone(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    .formatToParts(at)
    .reduce<Record<string, string>>((all, part) => ({ ...all, [part.type]: part.value }), {});
  return Number(parts.hour) * 60 + Number(parts.minute);
}

/** Whether `at` falls in the person's quiet hours (no push then); never without quiet hours or a time zone. */
export function inQuietHours(preferences: Pick<NotificationPreferences, 'quietHours' | 'timeZone'>, at: Date): boolean {
  const { quietHours, timeZone } = preferences;
  if (!quietHours || !timeZone) return false;
  const now = minutesInZone(at, timeZone);
  const from = minutesOf(quietHours.from);
  const to = minutesOf(quietHours.to);
  return from < to ? now >= from && now < to : now >= from || now < to;
}
