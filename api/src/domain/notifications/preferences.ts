import {
  defaultNotificationPreferences,
  minutesInZone,
  preferenceOf,
  setNotificationPreferencesArgsSchema,
  type NotificationPreferences,
  type NotificationType,
} from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { notificationPreferences } from '../../db/schema';
import { idsParam, inIdsParam, prepared } from '../../db/prepared';
import { defineCommand, lockPerson } from '../commands';

type PreferencesRow = typeof notificationPreferences.$inferSelect;

/** The morning digest goes out at this local time (issue: "one 'Your day' notice at 08:00"). */
export const DIGEST_MINUTE_OF_DAY = 8 * 60;

const toPreferences = (row: PreferencesRow): NotificationPreferences => ({
  _id: row.id,
  id: row.id,
  teamChat: row.teamChat,
  directMessages: row.directMessages,
  taskNotices: row.taskNotices,
  morningDigest: row.morningDigest,
  quietHours: row.quietHours ?? null,
  timeZone: row.timeZone,
  version: row.version,
});

/** The preferences of these people: what they stored, else the spec's defaults. */
export async function preferencesOf(
  db: Db | Tx,
  userIds: readonly string[],
): Promise<Map<string, NotificationPreferences>> {
  const query = prepared(db, 'notificationPreferences.byIds', (handle) =>
    handle.select().from(notificationPreferences).where(inIdsParam(notificationPreferences.id)).prepare(),
  );
  const rows = userIds.length ? await query.execute(idsParam(new Set(userIds))) : [];
  const stored = new Map(rows.map((row) => [row.id, toPreferences(row)]));
  return new Map(userIds.map((id) => [id, stored.get(id) ?? defaultNotificationPreferences(id)]));
}

/** Whether a stored notice of this type reaches this person at all (bell and push). */
export const wantsNotice = (preferences: NotificationPreferences, type: NotificationType): boolean => {
  const preference = preferenceOf(type);
  return preference === null || preferences[preference];
};

/**
 * The next 08:00 in `timeZone` strictly after `now`, as an instant. The zone's offset is read at a first
 * guess and again at the result, so a day on which the clocks change lands on the right hour.
 */
export function nextDigestAt(timeZone: string, now: Date): Date {
  const offsetAt = (instant: number): number => {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .formatToParts(new Date(instant))
      .reduce<Record<string, number>>((all, part) => ({ ...all, [part.type]: Number(part.value) }), {});
    const wall = Date.UTC(parts.year ?? 0, (parts.month ?? 1) - 1, parts.day, parts.hour, parts.minute);
    return wall - Math.floor(instant / 60_000) * 60_000;
  };
  const localNow = now.getTime() + offsetAt(now.getTime());
  const localMidnight = Math.floor(localNow / 86_400_000) * 86_400_000;
  const elapsed = minutesInZone(now, timeZone);
  const localTarget =
    localMidnight + DIGEST_MINUTE_OF_DAY * 60_000 + (elapsed >= DIGEST_MINUTE_OF_DAY ? 86_400_000 : 0);
  const guess = localTarget - offsetAt(localTarget);
  return new Date(localTarget - offsetAt(guess));
}

/** A digest this long after 08:00 still goes out (the server was down, or the person's first morning). */
export const DIGEST_LATE_MS = 4 * 3_600_000;

/**
 * The first digest of a person whose time zone is new: today's, when their morning is still young (a first
 * sign-in at 09:30 brings "Your day" at once), else the next 08:00.
 */
export function firstDigestAt(timeZone: string, now: Date): Date {
  const next = nextDigestAt(timeZone, now);
  const today = new Date(next.getTime() - 86_400_000);
  // The day before the next 08:00 is today's 08:00 but for a clock change, which only moves it by an hour.
  return now.getTime() - today.getTime() < DIGEST_LATE_MS && today <= now ? today : next;
}

/**
 * `notification.setPreferences`: PUT /api/notifications/preferences and its sync mutation. One row per
 * person, written when they act; their devices hear it. A new time zone moves the next digest.
 */
export const setNotificationPreferencesCommand = defineCommand({
  name: 'notification.setPreferences',
  args: setNotificationPreferencesArgsSchema,
  async run(ctx, changes): Promise<NotificationPreferences> {
    // Only what is given changes: two devices changing two settings at once keep both.
    await lockPerson(ctx);
    const current =
      (await preferencesOf(ctx.tx, [ctx.actor.id])).get(ctx.actor.id) ?? defaultNotificationPreferences(ctx.actor.id);
    // Only what is given changes: a key sent as undefined (absent in JSON) keeps its value.
    const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    const next: NotificationPreferences = { ...current, ...given };
    const values = {
      teamChat: next.teamChat,
      directMessages: next.directMessages,
      taskNotices: next.taskNotices,
      morningDigest: next.morningDigest,
      quietHours: next.quietHours,
      timeZone: next.timeZone,
    };
    const digestDueAt =
      next.timeZone && next.timeZone !== current.timeZone
        ? (current.timeZone === null ? firstDigestAt : nextDigestAt)(next.timeZone, ctx.now).toISOString()
        : null;
    await ctx.tx
      .insert(notificationPreferences)
      .values({ id: ctx.actor.id, ...values, digestDueAt })
      .onConflictDoUpdate({
        target: notificationPreferences.id,
        set: digestDueAt ? { ...values, digestDueAt } : values,
      });
    const { version } = await ctx.record({
      entity: 'notificationPreferences',
      id: ctx.actor.id,
      op: 'put',
      audience: [`user:${ctx.actor.id}`],
    });
    return { ...next, version };
  },
});
