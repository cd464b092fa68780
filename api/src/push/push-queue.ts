import { and, asc, count, eq, gte, inArray, isNotNull, isNull, lte, notInArray } from 'drizzle-orm';
import webpush from 'web-push';
import { chatNotice, inQuietHours, notificationUrl, type PushPayload } from '@office/sync-protocol';
import type { Db, Tx } from '../db/client';
import { transaction } from '../db/transaction';
import {
  chatMessages,
  notificationMarkers,
  notifications,
  pushChatStates,
  pushDeliveries,
  pushSubscriptions,
  users,
} from '../db/schema';
import { teamChatCreatesAfter, type LogPosition } from '../db/change-feed';
import { moveChatCursor, pushChatCursor } from '../domain/change-log';
import { preferencesOf } from '../domain/notifications/preferences';
import { inSlices, usersById } from '../domain/read-support';
import { EndpointRefused } from './endpoint-guard';
import { sendPushRequest } from './send';
import type { VapidKeys } from './vapid';
import type { Leadership } from '../db/leadership';
import type { PushDeliveryOutcome } from '../metrics/metrics';

/** How long a push service keeps an undelivered message: a day-old notification is still worth showing. */
const PUSH_TTL_SECONDS = 24 * 60 * 60;
/** Team chat pushes share one tag on the phone and one Topic at the push service: the newest replaces the others. */
const TEAM_CHAT_TAG = 'team-chat';

export interface PushQueueOptions {
  db: Db;
  keys: VapidKeys;
  /** Of these people, those whose app is open, visible and connected right now: they get no push. */
  visibleUsers(userIds: string[]): Promise<Set<string>>;
  log(error: unknown, message: string): void;
  /** PUSH_ALLOW_LOOPBACK: lets the tests' own push receiver on loopback (http) be an endpoint. */
  allowLoopback: boolean;
  /** With several nodes, only the leading one runs the queue (two would send the same push twice). */
  leadership?: Leadership;
  /**
   * With several nodes, the leader looks at least this often: a write on another node wakes that node's queue,
   * not the leader's.
   */
  pollMs?: number;
  /** At most one team chat push per person per this many ms; what comes meanwhile is summed up. */
  chatWindowMs?: number;
  /** Sends in flight at once. */
  concurrency?: number;
  /** Deliveries stored at most; past it nothing new is expanded until they drain (what waits stays stored). */
  maxQueued?: number;
  /** Tries of one delivery before it is dropped. */
  maxAttempts?: number;
  /** The first retry's delay; it doubles up to `retryMaxMs`. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** How long one send may take. */
  timeoutMs?: number;
  /** Hears how each delivery attempt ended (the server's metrics). */
  onDelivery?: (outcome: PushDeliveryOutcome) => void;
}

type Settings = Required<
  Omit<
    PushQueueOptions,
    'db' | 'keys' | 'visibleUsers' | 'log' | 'allowLoopback' | 'leadership' | 'pollMs' | 'onDelivery'
  >
>;

const defaults: Settings = {
  chatWindowMs: 30_000,
  concurrency: 8,
  maxQueued: 10_000,
  maxAttempts: 8,
  retryBaseMs: 1_000,
  retryMaxMs: 15 * 60_000,
  timeoutMs: 10_000,
};

/** Rows read per step of a tick; more waits for the next tick, right after. */
const BATCH = 500;
/** A wake coalesces the writes of this many ms into one tick (a busy chat is one tick, not one per message). */
const WAKE_DELAY_MS = 200;
/** How often a node that does not lead asks again, without pollMs. */
const LEAD_RETRY_MS = 5_000;

type DeliveryRow = typeof pushDeliveries.$inferSelect;
type ChatMessageRow = typeof chatMessages.$inferSelect;
type NewDelivery = { userId: string; payload: PushPayload; topic: string | null };

/** New team chat messages to expand (their ids, in commit order), and how far the cursor moves once they are. */
interface ChatToExpand {
  ids: string[];
  through: LogPosition;
  /** More creates wait after `through`. */
  more: boolean;
}

/**
 * Web push, off the request path. A write only marks what should be pushed (a flagged notification row; a team
 * chat message is found by its `create` change, after the queue's cursor) and wakes this queue once the write is on
 * disk. The queue then, in the background:
 * - turns each flagged notification into one delivery per subscription of its recipient, one by one;
 * - turns new team chat messages into at most one push per person per `chatWindowMs` ("3 new messages in
 *   Team Chat" for those held meanwhile), for the people with a subscription only;
 * - skips people whose app is open, visible and connected (they see it in the app), people in their quiet
 *   hours, and, for team chat, people whose preference takes mentions only or nothing;
 * - sends the due deliveries, a few at a time, retrying with backoff (429, 5xx, no answer) and dropping a
 *   subscription its push service calls gone (404, 410).
 * Everything waiting is stored (flags, the chat cursor, deliveries, held counts), so a restart picks it up where it
 * was.
 */
export class PushQueue {
  readonly keys: VapidKeys;
  private readonly settings: Settings;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private ticking = false;
  /** The tick running now, which a stop waits for. */
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly sending = new Map<number, Promise<void>>();

  constructor(private readonly options: PushQueueOptions) {
    this.keys = options.keys;
    const given = Object.fromEntries(Object.entries(options).filter(([key]) => key in defaults)) as Partial<Settings>;
    this.settings = { ...defaults, ...given };
  }

  /** Something waits for push (woken once it is durable): a tick runs shortly. */
  wake(): void {
    this.schedule(WAKE_DELAY_MS);
  }

  /** Picks up whatever was waiting when the server stopped. */
  start(): void {
    this.schedule(0);
  }

  /** Stops ticking and waits for the sends in flight; what is still waiting stays stored for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await Promise.allSettled([...this.sending.values()]);
    await this.options.leadership?.resign();
  }

  /** Resolves once nothing is being sent and nothing is due now (the tests wait on it). */
  async settled(): Promise<void> {
    for (;;) {
      await this.tick();
      if (this.sending.size === 0 && !(await this.hasWorkNow())) return;
      await Promise.allSettled([...this.sending.values()]);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + delayMs;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Number.POSITIVE_INFINITY;
      void this.tick();
    }, delayMs);
  }

  private tick(): Promise<void> {
    if (this.ticking || this.stopped) return this.running;
    this.running = this.step();
    return this.running;
  }

  private async step(): Promise<void> {
    this.ticking = true;
    try {
      if (this.options.leadership && !(await this.options.leadership.leads())) {
        // Another node runs the queue; this one takes over if that node goes.
        this.schedule(this.options.pollMs ?? LEAD_RETRY_MS);
        return;
      }
      const now = Date.now();
      let more = false;
      if ((await this.queuedCount()) < this.settings.maxQueued) {
        more = (await this.expandNotifications(now)) || more;
        more = (await this.expandChat(now)) || more;
        more = (await this.flushHeldChat(now)) || more;
      }
      await this.sendDue(now);
      const next = more ? 0 : await this.nextDueIn(Date.now());
      const poll = this.options.pollMs;
      if (next !== null || poll !== undefined) this.schedule(Math.min(next ?? Infinity, poll ?? Infinity));
    } catch (error) {
      this.options.log(error, 'push queue step failed');
      this.schedule(1000);
    } finally {
      this.ticking = false;
    }
  }

  private get db(): Db {
    return this.options.db;
  }

  private async queuedCount(): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(pushDeliveries);
    return row?.n ?? 0;
  }

  private async hasWorkNow(): Promise<boolean> {
    const nowIso = new Date().toISOString();
    // Flagged for push, or due now; each read only when the ones before found nothing.
    const reads: (() => PromiseLike<unknown[]>)[] = [
      () =>
        this.db
          .select({ id: notifications.id })
          .from(notifications)
          .where(eq(notifications.pushPending, true))
          .limit(1),
      async () => (await this.chatToExpand(1)).ids,
      () =>
        this.db
          .select({ id: pushDeliveries.id })
          .from(pushDeliveries)
          .where(lte(pushDeliveries.nextAttemptAt, nowIso))
          .limit(1),
      () =>
        this.db
          .select({ id: pushChatStates.userId })
          .from(pushChatStates)
          .where(lte(pushChatStates.flushAt, nowIso))
          .limit(1),
    ];
    for (const read of reads) if ((await read()).length > 0) return true;
    return false;
  }

  /** Ms until the next retry or held chat summary is due; null when nothing waits. */
  private async nextDueIn(now: number): Promise<number | null> {
    const [delivery] = await this.db
      .select({ at: pushDeliveries.nextAttemptAt })
      .from(pushDeliveries)
      .where(this.sending.size ? notInArray(pushDeliveries.id, [...this.sending.keys()]) : undefined)
      .orderBy(asc(pushDeliveries.nextAttemptAt))
      .limit(1);
    const [held] = await this.db
      .select({ at: pushChatStates.flushAt })
      .from(pushChatStates)
      .where(isNotNull(pushChatStates.flushAt))
      .orderBy(asc(pushChatStates.flushAt))
      .limit(1);
    // With every slot busy, a finishing send wakes the queue for the deliveries.
    const slotFree = this.sending.size < this.settings.concurrency;
    const times = [slotFree ? delivery?.at : null, held?.at].flatMap((at) => (at ? [Date.parse(at)] : []));
    return times.length ? Math.max(0, Math.min(...times) - now) : null;
  }

  /** Of these people, those who get no push now: their app is open and connected, or it is their quiet hours. */
  private async notNow(userIds: string[], now: number): Promise<Set<string>> {
    const visible = await this.options.visibleUsers(userIds);
    const preferences = await preferencesOf(this.db, userIds);
    const at = new Date(now);
    return new Set(
      userIds.filter((id) => {
        const theirs = preferences.get(id);
        return visible.has(id) || (theirs !== undefined && inQuietHours(theirs, at));
      }),
    );
  }

  /** Active subscriptions of these people, by person. */
  private async subscriptionsOf(userIds: string[]): Promise<Map<string, string[]>> {
    const rows = await inSlices(userIds, (slice) =>
      this.db
        .select({ endpoint: pushSubscriptions.endpoint, userId: pushSubscriptions.userId })
        .from(pushSubscriptions)
        .innerJoin(users, eq(users.id, pushSubscriptions.userId))
        .where(and(inArray(pushSubscriptions.userId, slice), isNull(users.deactivatedAt))),
    );
    const byUser = new Map<string, string[]>();
    for (const row of rows) byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), row.endpoint]);
    return byUser;
  }

  /** Stores one delivery per subscription of each push's person (inside the caller's transaction). */
  private async enqueue(
    tx: Tx,
    pushes: NewDelivery[],
    subscriptions: Map<string, string[]>,
    now: number,
  ): Promise<void> {
    const nextAttemptAt = new Date(now).toISOString();
    const rows = pushes.flatMap((push) =>
      (subscriptions.get(push.userId) ?? []).map((endpoint) => ({
        endpoint,
        payload: JSON.stringify(push.payload),
        topic: push.topic,
        nextAttemptAt,
      })),
    );
    for (let i = 0; i < rows.length; i += 100) await tx.insert(pushDeliveries).values(rows.slice(i, i + 100));
  }

  /** Notifications stored for one person (tasks, direct messages) are pushed one by one. */
  private async expandNotifications(now: number): Promise<boolean> {
    const rows = await this.db.select().from(notifications).where(eq(notifications.pushPending, true)).limit(BATCH);
    if (!rows.length) return false;
    const recipients = [...new Set(rows.map((row) => row.recipientId))];
    const unreachable = await this.notNow(recipients, now);
    const subscriptions = await this.subscriptionsOf(recipients.filter((id) => !unreachable.has(id)));
    const pushes: NewDelivery[] = rows
      .filter((row) => !unreachable.has(row.recipientId))
      .map((row) => ({
        userId: row.recipientId,
        topic: null,
        payload: {
          title: row.title,
          body: row.message,
          url: notificationUrl({ type: row.type, relatedTask: row.relatedTaskId, data: row.data }),
          tag: `notification-${row.id}`,
          notificationId: row.id,
        },
      }));
    await transaction(this.db, async (tx) => {
      await this.enqueue(tx, pushes, subscriptions, now);
      for (let i = 0; i < rows.length; i += 500)
        await tx
          .update(notifications)
          .set({ pushPending: false })
          .where(
            inArray(
              notifications.id,
              rows.slice(i, i + 500).map((row) => row.id),
            ),
          );
    });
    return rows.length === BATCH;
  }

  /** The push of one team chat message, as the person's notice reads. */
  private chatPush(
    message: { id: string; userId: string; text: string; createdAt: string; version: number },
    name: string,
  ): PushPayload {
    const notice = chatNotice(
      { ...message, author: { id: message.userId, name } },
      { id: message.userId, readThrough: null, chatReads: [] },
    );
    return { title: notice.title, body: notice.message, url: '/chat', tag: TEAM_CHAT_TAG, notificationId: message.id };
  }

  private summaryPush(held: number, newestId: string): PushPayload {
    return {
      title: 'Team Chat',
      body: `${held} new messages in Team Chat`,
      url: '/chat',
      tag: TEAM_CHAT_TAG,
      notificationId: newestId,
    };
  }

  /**
   * New team chat messages, for the people with a push subscription (never the whole team): a person
   * whose last team chat push is older than the window gets one now (the message, or a summary when several
   * came at once); otherwise the messages are held and summed up when the window ends.
   */
  private async expandChat(now: number): Promise<boolean> {
    const { ids, through, more } = await this.chatToExpand(BATCH);
    // Nothing new: the cursor stays. Moving it would be a write of its own, which moves PostgreSQL's horizon past the
    // cursor again: a queue that moved it each tick would never be idle (settled) and would write on every poll.
    if (!ids.length) return false;
    // Nobody has a subscription: nothing to push, whatever the number of messages.
    const [anySubscription] = await this.db
      .select({ endpoint: pushSubscriptions.endpoint })
      .from(pushSubscriptions)
      .limit(1);
    // Deleted since: nothing to tell.
    const messages = anySubscription ? await this.liveMessages(ids) : [];
    if (!messages.length) {
      await transaction(this.db, (tx) => moveChatCursor(tx, through));
      return more;
    }
    const subscribers = await this.db
      .selectDistinct({ id: users.id, joined: users.createdAt, since: notificationMarkers.chatSince })
      .from(pushSubscriptions)
      .innerJoin(users, eq(users.id, pushSubscriptions.userId))
      .leftJoin(notificationMarkers, eq(notificationMarkers.id, users.id))
      .where(isNull(users.deactivatedAt));
    const unreachable = await this.notNow(
      subscribers.map((s) => s.id),
      now,
    );
    const preferences = await preferencesOf(
      this.db,
      subscribers.map((s) => s.id),
    );
    // Only those who take every team chat message as a notice; mentions come as notices of their own.
    const waiting = subscribers.filter((s) => !unreachable.has(s.id) && preferences.get(s.id)?.teamChat === 'all');
    const states = new Map(
      (
        await inSlices(
          waiting.map((s) => s.id),
          (slice) => this.db.select().from(pushChatStates).where(inArray(pushChatStates.userId, slice)),
        )
      ).map((state) => [state.userId, state]),
    );
    const authors = await usersById(
      this.db,
      messages.map((m) => m.userId),
    );
    const nameOf = (id: string) => authors.get(id)?.name ?? 'Unknown';
    // A message that mentions a person is their mention notice, pushed on its own: not also a team chat push. The
    // notice shares the message's time, so each person's notices of the batch's span find it (by their index).
    const messageIds = new Set(messages.map((m) => m.id));
    // Oldest first (liveMessages), and never empty here.
    const span = and(
      gte(notifications.createdAt, messages[0]?.createdAt ?? ''),
      lte(notifications.createdAt, messages.at(-1)?.createdAt ?? ''),
    );
    const mentioned = new Set(
      (
        await inSlices(
          waiting.map((s) => s.id),
          (slice) =>
            this.db
              .select({ recipientId: notifications.recipientId, messageId: notifications.messageId })
              .from(notifications)
              .where(and(inArray(notifications.recipientId, slice), span, isNotNull(notifications.messageId))),
        )
      ).flatMap((notice) =>
        notice.messageId && messageIds.has(notice.messageId) ? [`${notice.recipientId}:${notice.messageId}`] : [],
      ),
    );
    const nowIso = new Date(now).toISOString();
    const pushes: NewDelivery[] = [];
    const stateWrites: (typeof pushChatStates.$inferInsert)[] = [];
    for (const person of waiting) {
      const since = person.since ?? person.joined;
      const theirs = messages.filter(
        (m) => m.userId !== person.id && m.createdAt >= since && !mentioned.has(`${person.id}:${m.id}`),
      );
      const newest = theirs.at(-1);
      if (!newest) continue;
      const state = states.get(person.id);
      const windowOpen =
        !state?.flushAt && (!state?.lastSentAt || now - Date.parse(state.lastSentAt) >= this.settings.chatWindowMs);
      if (windowOpen) {
        const payload =
          theirs.length === 1
            ? this.chatPush(newest, nameOf(newest.userId))
            : this.summaryPush(theirs.length, newest.id);
        pushes.push({ userId: person.id, topic: TEAM_CHAT_TAG, payload });
        stateWrites.push({ userId: person.id, lastSentAt: nowIso, heldCount: 0, heldMessageId: null, flushAt: null });
      } else {
        const lastSent = state?.lastSentAt ? Date.parse(state.lastSentAt) : now;
        stateWrites.push({
          userId: person.id,
          lastSentAt: state?.lastSentAt ?? null,
          heldCount: (state?.heldCount ?? 0) + theirs.length,
          heldMessageId: newest.id,
          flushAt: state?.flushAt ?? new Date(lastSent + this.settings.chatWindowMs).toISOString(),
        });
      }
    }
    const subscriptions = await this.subscriptionsOf(pushes.map((push) => push.userId));
    await transaction(this.db, async (tx) => {
      await this.enqueue(tx, pushes, subscriptions, now);
      for (const state of stateWrites) {
        await tx.insert(pushChatStates).values(state).onConflictDoUpdate({ target: pushChatStates.userId, set: state });
      }
      await moveChatCursor(tx, through);
    });
    return more;
  }

  /**
   * The new team chat messages after the cursor (their `create` changes), at most `limit`, with the place in the change
   * log the cursor moves to once they are expanded: only what can be read now (change-feed.ts), so nothing can still
   * appear behind the cursor; compaction stops before a create the queue has not seen (see compactChangeLog).
   */
  private async chatToExpand(limit: number): Promise<ChatToExpand> {
    const cursor = await pushChatCursor(this.db);
    const { created, readable } = await teamChatCreatesAfter(this.db, cursor, limit);
    const more = created.length === limit;
    const through = more ? (created.at(-1)?.position ?? cursor) : readable;
    return { ids: created.map((change) => change.id), through, more };
  }

  /** These messages, those not deleted, oldest first. */
  private async liveMessages(ids: string[]): Promise<ChatMessageRow[]> {
    const messages = await inSlices(ids, (slice) =>
      this.db
        .select()
        .from(chatMessages)
        .where(and(inArray(chatMessages.id, slice), isNull(chatMessages.deletedAt))),
    );
    return messages.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /** Held team chat messages whose window has ended: one push each person, unless they are in the app now. */
  private async flushHeldChat(now: number): Promise<boolean> {
    const nowIso = new Date(now).toISOString();
    const due = await this.db.select().from(pushChatStates).where(lte(pushChatStates.flushAt, nowIso)).limit(BATCH);
    if (!due.length) return false;
    const unreachable = await this.notNow(
      due.map((state) => state.userId),
      now,
    );
    const single = due.flatMap((state) => (state.heldCount === 1 && state.heldMessageId ? [state.heldMessageId] : []));
    const singles = new Map(
      (
        await inSlices(single, (slice) =>
          this.db
            .select()
            .from(chatMessages)
            .where(and(inArray(chatMessages.id, slice), isNull(chatMessages.deletedAt))),
        )
      ).map((m) => [m.id, m]),
    );
    const authors = await usersById(
      this.db,
      [...singles.values()].map((m) => m.userId),
    );
    const pushes: NewDelivery[] = [];
    for (const state of due) {
      if (unreachable.has(state.userId) || !state.heldMessageId || state.heldCount === 0) continue;
      const message = state.heldCount === 1 ? singles.get(state.heldMessageId) : undefined;
      const payload = message
        ? this.chatPush(message, authors.get(message.userId)?.name ?? 'Unknown')
        : this.summaryPush(state.heldCount, state.heldMessageId);
      pushes.push({ userId: state.userId, topic: TEAM_CHAT_TAG, payload });
    }
    const subscriptions = await this.subscriptionsOf(pushes.map((push) => push.userId));
    await transaction(this.db, async (tx) => {
      await this.enqueue(tx, pushes, subscriptions, now);
      for (const state of due) {
        const sent = pushes.some((push) => push.userId === state.userId);
        await tx
          .update(pushChatStates)
          .set({ lastSentAt: sent ? nowIso : state.lastSentAt, heldCount: 0, heldMessageId: null, flushAt: null })
          .where(eq(pushChatStates.userId, state.userId));
      }
    });
    return due.length === BATCH;
  }

  private async sendDue(now: number): Promise<void> {
    const free = this.settings.concurrency - this.sending.size;
    if (free <= 0) return;
    const due = await this.db
      .select()
      .from(pushDeliveries)
      .where(
        and(
          lte(pushDeliveries.nextAttemptAt, new Date(now).toISOString()),
          this.sending.size ? notInArray(pushDeliveries.id, [...this.sending.keys()]) : undefined,
        ),
      )
      .orderBy(asc(pushDeliveries.nextAttemptAt), asc(pushDeliveries.id))
      .limit(free);
    // A stop that came during the read waits only for the sends already started.
    if (this.stopped) return;
    for (const delivery of due) {
      const sent = this.send(delivery)
        .catch((error: unknown) => this.options.log(error, 'push delivery failed'))
        .finally(() => {
          this.sending.delete(delivery.id);
          this.schedule(0);
        });
      this.sending.set(delivery.id, sent);
    }
  }

  private async dropDelivery(id: number): Promise<void> {
    await transaction(this.db, async (tx) => {
      await tx.delete(pushDeliveries).where(eq(pushDeliveries.id, id));
    });
  }

  private async send(delivery: DeliveryRow): Promise<void> {
    const [subscription] = await this.db
      .select()
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.endpoint, delivery.endpoint));
    if (!subscription) return this.dropDelivery(delivery.id);
    const details = webpush.generateRequestDetails(
      { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
      delivery.payload,
      {
        vapidDetails: this.keys,
        TTL: PUSH_TTL_SECONDS,
        contentEncoding: 'aes128gcm',
        urgency: 'normal',
        ...(delivery.topic ? { topic: delivery.topic } : {}),
      },
    );
    let answer: Awaited<ReturnType<typeof sendPushRequest>>;
    try {
      answer = await sendPushRequest(
        { endpoint: details.endpoint, method: details.method, headers: details.headers, body: details.body },
        { allowLoopback: this.options.allowLoopback, timeoutMs: this.settings.timeoutMs },
      );
    } catch (error) {
      if (this.stopped) return;
      if (error instanceof EndpointRefused) {
        this.options.log(error, 'push endpoint refused at send time');
        return this.dropDelivery(delivery.id);
      }
      return this.retry(delivery, null, error);
    }
    if (this.stopped && answer.status >= 500) return;
    if (answer.status >= 200 && answer.status < 300) {
      this.options.onDelivery?.('sent');
      return this.dropDelivery(delivery.id);
    }
    if (answer.status === 404 || answer.status === 410) {
      this.options.onDelivery?.('gone');
      // The push service says the subscription is gone; its deliveries go with it.
      await transaction(this.db, async (tx) => {
        await tx.delete(pushSubscriptions).where(eq(pushSubscriptions.endpoint, delivery.endpoint));
      });
      return;
    }
    if (answer.status === 429 || answer.status >= 500) {
      return this.retry(delivery, answer.retryAfterMs, new Error(`push service answered ${answer.status}`));
    }
    // Anything else (a redirect, 400, 403, 413) will not change by trying again.
    this.options.log(new Error(`push service answered ${answer.status}`), 'push delivery refused');
    this.options.onDelivery?.('dropped');
    return this.dropDelivery(delivery.id);
  }

  private async retry(delivery: DeliveryRow, retryAfterMs: number | null, error: unknown): Promise<void> {
    const attempts = delivery.attempts + 1;
    if (attempts >= this.settings.maxAttempts) {
      this.options.log(error, `push delivery dropped after ${attempts} attempts`);
      this.options.onDelivery?.('dropped');
      return this.dropDelivery(delivery.id);
    }
    this.options.onDelivery?.('retried');
    const backoff = Math.min(this.settings.retryMaxMs, this.settings.retryBaseMs * 2 ** (attempts - 1));
    // Jitter spreads the retries of many deliveries to one failing service.
    const delay = Math.max(retryAfterMs ?? 0, backoff * (0.5 + Math.random() * 0.5));
    await transaction(this.db, async (tx) => {
      await tx
        .update(pushDeliveries)
        .set({ attempts, nextAttemptAt: new Date(Date.now() + delay).toISOString() })
        .where(eq(pushDeliveries.id, delivery.id));
    });
  }
}
