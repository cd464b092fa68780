import { useCallback } from 'react';
import { Dexie } from 'dexie';
import { forgetDeviceAccount } from '../app/auth/device-accounts';
import { clearEndedSession } from '../app/auth/ended-session';
import { logoutRequest } from '../api/auth-api';
import { logoutWithUnsyncedConfirmation } from '../app/confirmations';
import { useDialogs } from '../components/dialogs';
import { useAuth } from '../app/auth/use-auth';
import { databaseName } from '../data/db';
import { stashedDraftsItem } from '../data/drafts';
import { endPushSubscription } from '../push/push-subscription';
import { useOptionalWorkspace } from './sync-context';

/** Ends this device's session on the server; offline (or already ended) it simply expires there later. */
const endServerSession = () =>
  logoutRequest().catch((error: unknown) => console.warn('Could not end the session on the server', error));

/**
 * The Logout button: warns before discarding unsynced writes, then ends the session (on the server too, so
 * its token stops working) and deletes this user's local database and what this device remembers to open
 * the account offline. (A 401 ends the session too, but keeps the database, its outbox and the offline
 * sign-in.)
 */
export function useSignOut(): () => Promise<void> {
  const { logout, user } = useAuth();
  const userId = user?.id ?? null;
  const workspace = useOptionalWorkspace();
  const { confirm } = useDialogs();
  return useCallback(async () => {
    const forgetDevice = async (): Promise<void> => {
      clearEndedSession();
      if (userId !== null) await forgetDeviceAccount(userId);
    };
    if (!workspace) {
      await endPushSubscription({ tellServer: true });
      await forgetDevice();
      await endServerSession();
      logout();
      return;
    }
    const unsynced = await workspace.db.outbox.count();
    if (unsynced > 0 && !(await confirm(logoutWithUnsyncedConfirmation(unsynced)))) return;
    // While the token is still valid, so the server forgets this browser's push subscription too.
    await endPushSubscription({ tellServer: true });
    await endServerSession();
    workspace.engine.stop();
    workspace.socket.close();
    workspace.db.close();
    await Dexie.delete(databaseName(workspace.ctx.userId));
    // The drafts go with the database, including any a closing page stashed in Web Storage.
    localStorage.removeItem(stashedDraftsItem(workspace.ctx.userId));
    await forgetDevice();
    logout();
  }, [confirm, logout, userId, workspace]);
}
