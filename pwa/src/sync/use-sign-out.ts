import { useCallback } from 'react';
import { Dexie } from 'dexie';
import { useAuth } from '../app/auth/use-auth';
import { databaseName } from '../data/db';
import { stashedDraftsItem } from '../data/drafts';
import { endPushSubscription } from '../push/push-subscription';
import { useOptionalWorkspace } from './sync-context';

/**
 * The Logout button: warns before discarding unsynced writes, then ends the session and deletes
 * this user's local database. (A 401 ends the session too, but keeps the database and its outbox.)
 */
export function useSignOut(): () => Promise<void> {
  const { logout } = useAuth();
  const workspace = useOptionalWorkspace();
  return useCallback(async () => {
    if (!workspace) {
      await endPushSubscription({ tellServer: true });
      logout();
      return;
    }
    const unsynced = await workspace.db.outbox.count();
    if (unsynced > 0) {
      const noun = unsynced === 1 ? 'change that has' : 'changes that have';
      const confirmed = window.confirm(
        `You have ${unsynced} ${noun} not reached the server yet. If you log out now, they will be lost. Log out anyway?`,
      );
      if (!confirmed) return;
    }
    // While the token is still valid, so the server forgets this browser's push subscription too.
    await endPushSubscription({ tellServer: true });
    workspace.engine.stop();
    workspace.socket.close();
    workspace.db.close();
    await Dexie.delete(databaseName(workspace.ctx.userId));
    // The drafts go with the database, including any a closing page stashed in Web Storage.
    localStorage.removeItem(stashedDraftsItem(workspace.ctx.userId));
    logout();
  }, [logout, workspace]);
}
