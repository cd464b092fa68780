import type { PushPayload } from '@office/sync-protocol';

/** The payload's fields, all strings (sync-protocol's pushPayloadSchema; a unit test keeps the two equal). */
export const pushPayloadFields = ['title', 'body', 'url', 'tag', 'notificationId'] as const;

/** Where a click leads when a payload's URL cannot be used. */
export const fallbackNotificationPath = '/dashboard';

/**
 * The JSON a push message carries, in the protocol's shape; null for anything else (no throw). Checked by
 * hand rather than with the zod schema: the schema would bring zod and the whole protocol into the
 * service worker, several times its own size.
 */
export function parsePushPayload(text: string | null | undefined): PushPayload | null {
  if (!text) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const record = json as Record<string, unknown>;
  if (!pushPayloadFields.every((field) => typeof record[field] === 'string')) return null;
  const { title, body, url, tag, notificationId } = record as PushPayload;
  return { title, body, url, tag, notificationId };
}

/** Whether a path belongs to the app's screens (not to the API or the socket). */
export const isAppPath = (pathname: string): boolean => !/^\/(api|socket\.io)(\/|$)/.test(pathname);

/**
 * The in-app path (path, query, hash) a click on a notification opens. Security: only a place inside this
 * origin, outside /api and the socket; anything else (another site, a script URL) opens the dashboard.
 */
export function notificationTargetPath(url: unknown, origin: string): string {
  if (typeof url !== 'string' || url === '') return fallbackNotificationPath;
  let target: URL;
  try {
    target = new URL(url, origin);
  } catch {
    return fallbackNotificationPath;
  }
  if (target.origin !== origin || !isAppPath(target.pathname)) {
    return fallbackNotificationPath;
  }
  return `${target.pathname}${target.search}${target.hash}`;
}

/** What the service worker keeps on a notification it shows (`Notification.data`). */
export interface NotificationData {
  url: string;
  notificationId: string;
}

/** Reads `Notification.data` back, whatever shape an older worker version left there. */
export function notificationDataUrl(data: unknown): unknown {
  return typeof data === 'object' && data !== null ? (data as { url?: unknown }).url : undefined;
}

/** The notification id a shown notification carries, if any. */
export function notificationDataId(data: unknown): string | null {
  const id = typeof data === 'object' && data !== null ? (data as { notificationId?: unknown }).notificationId : null;
  return typeof id === 'string' ? id : null;
}

/**
 * The message the service worker posts to an open window: "show this place", handled by the app's router,
 * and mark the notification the user clicked as read.
 */
export interface OpenUrlMessage {
  type: 'notification.open';
  url: string;
  notificationId: string | null;
}

export function isOpenUrlMessage(data: unknown): data is OpenUrlMessage {
  if (typeof data !== 'object' || data === null) return false;
  const { type, url, notificationId } = data as { type?: unknown; url?: unknown; notificationId?: unknown };
  return (
    type === 'notification.open' &&
    typeof url === 'string' &&
    (notificationId === null || notificationId === undefined || typeof notificationId === 'string')
  );
}
