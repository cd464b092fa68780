import { z } from 'zod';
import { ApiError, api, request } from '../api/http';
import { urlBase64ToUint8Array } from './push-keys';

/** Whether this browser can receive web push at all (iOS Safari only inside an installed app). */
export const isPushSupported = (): boolean =>
  typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/** How long turning notifications on waits for the service worker of a page that has just loaded. */
const workerWaitMs = 10_000;
/**
 * How long the browser may take to register with its push service. Where that service cannot be reached
 * (a network that blocks it, no internet) Chromium never answers, and the switch must not spin forever.
 */
export const pushServiceWaitMs = 15_000;

/** GET /api/push/public-key: the server's VAPID public key, URL-safe base64. */
const publicKeyAnswerSchema = z.object({ publicKey: z.string().min(1) });

/**
 * The browser did not create a subscription: no service worker yet, it refused (a private window, push
 * turned off), or its push service did not answer.
 */
export class PushSetupError extends Error {
  override readonly name = 'PushSetupError';
  readonly reason: 'no-worker' | 'refused' | 'push-service';

  constructor(reason: PushSetupError['reason'], cause?: unknown) {
    super(cause instanceof Error ? cause.message : reason, { cause });
    this.reason = reason;
  }
}

/** `promise`, or a PushSetupError for `reason` once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, reason: PushSetupError['reason']): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PushSetupError(reason)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** This browser's push subscription for the app, or null (none, or no service worker yet). */
export async function currentPushSubscription(): Promise<PushSubscription | null> {
  if (!isPushSupported()) return null;
  const registration = await navigator.serviceWorker.getRegistration();
  return (await registration?.pushManager.getSubscription()) ?? null;
}

const sameBytes = (left: ArrayBuffer | null, right: Uint8Array): boolean => {
  if (left === null || left.byteLength !== right.byteLength) return false;
  const bytes = new Uint8Array(left);
  return bytes.every((byte, index) => byte === right[index]);
};

/**
 * Subscribes this browser to the server's pushes: the server's VAPID key, the browser's push service, then
 * POST /api/push/subscribe. The caller has the notification permission already. When the server cannot
 * store it, the browser's subscription is dropped again, so the switch never shows "on" for nothing.
 */
export async function subscribeToPush(): Promise<PushSubscription> {
  const registration = await within(navigator.serviceWorker.ready, workerWaitMs, 'no-worker');
  const { publicKey } = await api.get('/push/public-key', { answer: publicKeyAnswerSchema });
  const applicationServerKey = urlBase64ToUint8Array(publicKey);
  let subscription = await registration.pushManager.getSubscription();
  // A subscription made for other server keys (the keys were replaced) cannot be reused.
  if (subscription && !sameBytes(subscription.options.applicationServerKey, applicationServerKey)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  if (!subscription) {
    const pending = registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey });
    try {
      subscription = await within(pending, pushServiceWaitMs, 'push-service');
    } catch (error) {
      if (error instanceof PushSetupError) {
        // Given up on: a subscription that still arrives later would show "on" with the server unaware.
        void pending.then((late) => late.unsubscribe()).catch(() => false);
        throw error;
      }
      // Chromium says "Registration failed - permission denied" where push is off although notifications
      // are allowed (a private window); other failures are its push service's.
      const refused =
        error instanceof DOMException && (error.name === 'NotAllowedError' || /permission denied/i.test(error.message));
      throw new PushSetupError(refused ? 'refused' : 'push-service', error);
    }
  }
  try {
    await api.post('/push/subscribe', subscription.toJSON());
  } catch (error) {
    await subscription.unsubscribe().catch(() => false);
    throw error;
  }
  return subscription;
}

/** Turns pushes off: the server forgets this browser (needs the network), then the browser drops the subscription. */
export async function unsubscribeFromPush(): Promise<void> {
  const subscription = await currentPushSubscription();
  if (!subscription) return;
  await request('DELETE', '/push/subscribe', { endpoint: subscription.endpoint });
  await subscription.unsubscribe();
}

/**
 * A session ends: this browser stops receiving the user's pushes. The server is told when `tellServer`
 * (the Logout button, token still valid); otherwise it drops the endpoint once the push service calls it gone.
 * Never throws: signing out must not fail because of push.
 */
export async function endPushSubscription({ tellServer }: { tellServer: boolean }): Promise<void> {
  const subscription = await currentPushSubscription().catch(() => null);
  if (!subscription) return;
  if (tellServer) {
    await request(
      'DELETE',
      '/push/subscribe',
      { endpoint: subscription.endpoint },
      { timeoutMs: 3000, signOutOnUnauthorized: false },
    ).catch(() => undefined);
  }
  await subscription.unsubscribe().catch(() => false);
}

/** Texts of the Notifications switch. */
export const pushTexts = {
  label: 'Push notifications',
  hint: 'Show a system notification on this device for new tasks, comments and messages while the app is closed or in the background.',
  unsupported:
    'This browser cannot receive push notifications. On iPhone and iPad, add the app to your Home Screen and open it from there.',
  blocked: 'Notifications are blocked in this browser. Allow them in the site settings to turn them on.',
  dismissed: 'Notifications stay off: the browser did not get your permission.',
  offline: 'Turning notifications on or off needs a connection. Please try again when you are online.',
  refused: 'This browser refused to set up push notifications, so they stay off. Private windows cannot receive them.',
  pushService: 'This browser could not reach its push service, so notifications stay off. Please try again later.',
  noWorker: 'The app is still getting ready on this device. Please try again in a moment.',
  turnedOn: 'Notifications turned on for this device',
  turnedOff: 'Notifications turned off for this device',
  failedOff: 'Could not turn notifications off. Please try again.',
} as const;

/** The sentence for a failure of the switch. */
export function pushFailureMessage(failure: unknown, turningOn: boolean): string {
  if (failure instanceof PushSetupError) {
    if (failure.reason === 'refused') {
      return typeof Notification !== 'undefined' && Notification.permission === 'denied'
        ? pushTexts.blocked
        : pushTexts.refused;
    }
    if (failure.reason === 'no-worker') return pushTexts.noWorker;
    return pushTexts.pushService;
  }
  if (failure instanceof ApiError) return failure.message;
  return turningOn ? pushTexts.pushService : pushTexts.failedOff;
}
