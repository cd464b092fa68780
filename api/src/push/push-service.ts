import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import webpush from 'web-push';
import { notificationUrl, type PushPayload } from '@office/sync-protocol';
import type { Db } from '../db/client';
import { notifications, pushSubscriptions, users } from '../db/schema';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

/** VAPID keys from the environment, else from DATA_DIR/vapid.json, generated there on first start. */
export function loadVapidKeys(dataDir: string, env: NodeJS.ProcessEnv = process.env): VapidKeys {
  const subject = env.VAPID_SUBJECT || 'mailto:admin@office.local';
  if (env.VAPID_PUBLIC_KEY && env.VAPID_PRIVATE_KEY) {
    return { publicKey: env.VAPID_PUBLIC_KEY, privateKey: env.VAPID_PRIVATE_KEY, subject };
  }
  const file = join(dataDir, 'vapid.json');
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { publicKey: string; privateKey: string };
    return { ...stored, subject };
  }
  const generated = webpush.generateVAPIDKeys();
  writeFileSync(file, JSON.stringify(generated), { mode: 0o600 });
  return { ...generated, subject };
}

/** How long a push service keeps an undelivered message: a day-old notification is still worth showing. */
const PUSH_TTL_SECONDS = 24 * 60 * 60;

/**
 * Sends each new notification to its recipient's push subscriptions, unless the recipient has the app open
 * and visible right now. Runs after the commit, never inside a request's outcome: a failed send is logged and
 * the subscriptions a push service calls gone (404, 410) are removed.
 */
export class PushService {
  constructor(
    private readonly db: Db,
    readonly keys: VapidKeys,
    private readonly isAppVisible: (userId: string) => boolean,
    private readonly log: (error: unknown, message: string) => void,
  ) {}

  deliver(notificationIds: string[]): Promise<void> {
    if (notificationIds.length === 0) return Promise.resolve();
    return this.send(notificationIds).catch((error: unknown) => this.log(error, 'push delivery failed'));
  }

  private async send(notificationIds: string[]): Promise<void> {
    const rows = this.db
      .select({
        id: notifications.id,
        recipientId: notifications.recipientId,
        senderId: notifications.senderId,
        type: notifications.type,
        title: notifications.title,
        message: notifications.message,
        relatedTask: notifications.relatedTaskId,
        data: notifications.data,
      })
      .from(notifications)
      .where(inArray(notifications.id, notificationIds))
      .all()
      .filter((row) => !this.isAppVisible(row.recipientId));
    if (rows.length === 0) return;
    const recipients = [...new Set(rows.map((row) => row.recipientId))];
    const subscriptions = this.db
      .select()
      .from(pushSubscriptions)
      .innerJoin(users, eq(users.id, pushSubscriptions.userId))
      .where(inArray(pushSubscriptions.userId, recipients))
      .all()
      .filter((row) => row.users.deactivatedAt === null)
      .map((row) => row.push_subscriptions);
    await Promise.all(
      rows.flatMap((row) =>
        subscriptions
          .filter((subscription) => subscription.userId === row.recipientId)
          .map((subscription) => this.sendOne(subscription, row)),
      ),
    );
  }

  private async sendOne(
    subscription: typeof pushSubscriptions.$inferSelect,
    row: {
      id: string;
      senderId: string | null;
      type: string;
      title: string;
      message: string;
      relatedTask: string | null;
      data: Record<string, unknown>;
    },
  ): Promise<void> {
    // Chat pushes collapse per sender, on the phone (tag) and at the push service (topic).
    const collapse = row.type === 'chat_message' && row.senderId ? `chat-${row.senderId.replaceAll('-', '')}` : null;
    const payload: PushPayload = {
      title: row.title,
      body: row.message,
      url: notificationUrl(row),
      tag: collapse ?? `notification-${row.id}`,
      notificationId: row.id,
    };
    const request = webpush.generateRequestDetails(
      { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
      JSON.stringify(payload),
      {
        vapidDetails: this.keys,
        TTL: PUSH_TTL_SECONDS,
        contentEncoding: 'aes128gcm',
        urgency: 'normal',
        ...(collapse ? { topic: collapse.slice(0, 32) } : {}),
      },
    );
    try {
      const response = await fetch(request.endpoint, {
        method: request.method,
        headers: request.headers as Record<string, string>,
        ...(request.body ? { body: new Uint8Array(request.body) } : {}),
        signal: AbortSignal.timeout(10_000),
      });
      if (response.status === 404 || response.status === 410) {
        this.db.delete(pushSubscriptions).where(eq(pushSubscriptions.endpoint, subscription.endpoint)).run();
      } else if (!response.ok) {
        this.log(new Error(`push service answered ${response.status}`), 'push delivery refused');
      }
    } catch (error) {
      this.log(error, 'push delivery failed');
    }
  }
}
