import { useEffect } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { countUnreadNotifications, isUnreadNotice } from '../data/notification-hooks';
import { showAppBadge } from '../push/app-badge';
import { isOpenUrlMessage } from '../push/push-payload';
import { endPushSubscription } from '../push/push-subscription';
import { mutate } from '../sync/mutate';
import { useOptionalWorkspace, type Workspace } from '../sync/sync-context';
import { useAuth } from './auth/use-auth';
import { getAppRouter } from './router';

/** The installed app's icon shows the unread count from IndexedDB, live; nothing while signed out. */
function useUnreadAppBadge(): void {
  const workspace = useOptionalWorkspace();
  const unread = useLiveQuery(
    () => (workspace ? countUnreadNotifications(workspace.db, workspace.ctx.userId) : 0),
    [workspace],
  );
  useEffect(() => {
    if (unread !== undefined) void showAppBadge(unread);
  }, [unread]);
}

/**
 * A click on a system notification: the service worker asks this window to show the place, and the router
 * does it without reloading the app. The answer on the message's port tells the worker it was handled.
 */
function useOpenFromNotifications(): void {
  const workspace = useOptionalWorkspace();
  useEffect(() => {
    const container = 'serviceWorker' in navigator ? navigator.serviceWorker : null;
    if (!container) return undefined;
    const handleMessage = (event: MessageEvent) => {
      if (!isOpenUrlMessage(event.data)) return;
      const { url, notificationId } = event.data;
      void getAppRouter().navigate(url);
      event.ports[0]?.postMessage({ opened: true });
      if (workspace && notificationId) void markClickedRead(workspace, notificationId);
    };
    container.addEventListener('message', handleMessage);
    // addEventListener alone leaves the worker's messages queued until the page has loaded.
    container.startMessages();
    return () => container.removeEventListener('message', handleMessage);
  }, [workspace]);
}

/** The notification the user clicked is read, as if clicked in the bell (a queued write, offline too). */
async function markClickedRead(workspace: Workspace, id: string): Promise<void> {
  if (!(await isUnreadNotice(workspace.db, workspace.ctx.userId, id))) return;
  await mutate(workspace.db, workspace.ctx, 'notification.markRead', { id });
  workspace.engine.kick();
}

/** A browser with nobody signed in gets nobody's pushes, however the session ended (Logout, a 401, elsewhere). */
function usePushEndsWithSession(): void {
  const { user, loading } = useAuth();
  const signedOut = !loading && user === null;
  useEffect(() => {
    if (signedOut) void endPushSubscription({ tellServer: false });
  }, [signedOut]);
}

/** The device side of notifications that lives outside any screen: app badge, notification clicks, sign-out. */
export function DeviceNotifications() {
  useUnreadAppBadge();
  useOpenFromNotifications();
  usePushEndsWithSession();
  return null;
}
