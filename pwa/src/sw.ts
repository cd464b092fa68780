/// <reference lib="webworker" />
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import {
  isAppPath,
  notificationDataId,
  notificationDataUrl,
  notificationTargetPath,
  parsePushPayload,
  type NotificationData,
  type OpenUrlMessage,
} from './push/push-payload';

declare const self: ServiceWorkerGlobalScope &
  typeof globalThis & { __WB_MANIFEST: (string | { url: string; revision: string | null })[] };

// The app shell is precached so the installed app opens with no network. /api is never cached:
// the data lives in IndexedDB.
cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('/index.html'), {
    denylist: [/^\/api(\/|$)/, /^\/socket\.io/],
  }),
);

// The first install takes the open page at once; later versions wait until the user chooses Reload.
clientsClaim();
self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});

// Web push: one system notification per message; a click opens its place in the app.
self.addEventListener('push', (event) => {
  let text: string | null = null;
  try {
    text = event.data?.text() ?? null;
  } catch {
    text = null;
  }
  // Our server only sends the protocol's payload; anything else is dropped rather than shown half-read.
  const payload = parsePushPayload(text);
  if (!payload) return;
  const data: NotificationData = { url: payload.url, notificationId: payload.notificationId };
  event.waitUntil(
    self.registration.showNotification(payload.title, {
      body: payload.body,
      tag: payload.tag,
      data,
      icon: '/icons/icon-192.png',
      badge: '/icons/badge-96.png',
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const path = notificationTargetPath(notificationDataUrl(event.notification.data), self.location.origin);
  event.waitUntil(openInApp(path, notificationDataId(event.notification.data)));
});

/** How long an open window has to confirm that its router showed the place. */
const openAnswerMs = 2000;

/** The window the user saw last comes first: focused, then visible, then any. */
const windowRank = (client: WindowClient): number =>
  client.focused ? 2 : client.visibilityState === 'visible' ? 1 : 0;

/** Asks an open window's router to show `path` (no reload); true once the window confirms. */
function askWindowToOpen(client: WindowClient, path: string, notificationId: string | null): Promise<boolean> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const finish = (opened: boolean) => {
      clearTimeout(timer);
      channel.port1.close();
      resolve(opened);
    };
    const timer = setTimeout(() => finish(false), openAnswerMs);
    channel.port1.onmessage = () => finish(true);
    const message: OpenUrlMessage = { type: 'notification.open', url: path, notificationId };
    client.postMessage(message, [channel.port2]);
  });
}

/** Focuses an open window of the app and shows `path` there, or opens a new window at it. */
async function openInApp(path: string, notificationId: string | null): Promise<void> {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const appWindows = windows
    .filter((client) => isAppPath(new URL(client.url).pathname))
    .sort((left, right) => windowRank(right) - windowRank(left));
  const target = appWindows[0];
  if (target) {
    // Focus needs the click's user activation; the window is still taken to the place without it.
    const focused = await target.focus().catch(() => target);
    if (await askWindowToOpen(focused, path, notificationId)) return;
    // A window whose app does not answer (still loading, an older version) is loaded at the place instead.
    const navigated = await focused.navigate(path).catch(() => null);
    if (navigated) return;
  }
  await self.clients.openWindow(path);
}
