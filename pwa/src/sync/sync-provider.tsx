import { useEffect, useState, type ReactNode } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { User } from '@office/sync-protocol';
import { api } from '../api/http';
import { useAuth } from '../app/auth/use-auth';
import { dispatchAvatarUpdated } from '../app/auth/avatar-events';
import { openWorkspaceDb } from '../data/db';
import { reportPresence } from '../realtime/presence';
import { connectRealtime } from '../realtime/socket';
import { applyLiveChange } from './apply';
import { SyncEngine } from './engine';
import { httpTransport } from './transport';
import { WorkspaceContext, type Workspace } from './sync-context';

/** Opens the signed-in user's database, starts the sync loop and the socket, and tears them down on sign-out. */
export function SyncProvider({ children }: { children: ReactNode }) {
  const { user, token } = useAuth();
  const userId = user?.id ?? null;
  // The workspace belongs to one session (user and token); a stale one is never handed to screens.
  const [opened, setOpened] = useState<{ session: string; workspace: Workspace } | null>(null);
  const session = userId && token ? `${userId}:${token}` : null;

  useEffect(() => {
    if (!userId || !token) return undefined;
    const db = openWorkspaceDb(userId);
    const ctx = { userId };
    const engine = new SyncEngine(db, ctx, httpTransport, {
      locks: typeof navigator.locks === 'undefined' ? undefined : navigator.locks,
      isOnline: () => navigator.onLine,
    });
    const socket = connectRealtime(token);

    socket.on('connect', () => {
      engine.kick();
      // Typing in direct messages reaches the rooms of the user's conversations.
      socket.emit('join-conversations');
    });
    const stopPresence = reportPresence(socket);
    socket.on('connect_error', (error) => {
      // A refused handshake may mean the session ended; /auth/me answers 401 then, which signs out.
      const code = (error as Error & { data?: { code?: string } }).data?.code;
      if (code === 'unauthenticated') void api.get('/auth/me').catch(() => undefined);
    });
    socket.on('sync.change', ({ seq, change }) => {
      void applyLiveChange(db, ctx, seq, change).then((result) => {
        if (result === 'gap') engine.pullSoon();
      });
    });
    socket.on('sync.poke', engine.pullSoon);
    socket.on('user-online', ({ userId: id }) => void db.users.update(id, { status: 'online' }));
    socket.on('user-offline', ({ userId: id, lastSeen }) => void db.users.update(id, { status: 'offline', lastSeen }));
    socket.on(
      'user-presence-update',
      ({ userId: id, status, lastSeen }) => void db.users.update(id, { status, lastSeen }),
    );

    socket.on('avatar-updated', ({ userId: id, avatar }) => {
      void db.users.update(id, { avatar }).then(() => dispatchAvatarUpdated(id));
    });

    const handleOnline = () => engine.kick();
    const handleVisibility = () => {
      if (document.visibilityState === 'visible') engine.kick();
    };
    window.addEventListener('online', handleOnline);
    document.addEventListener('visibilitychange', handleVisibility);
    // Ask the browser not to evict this user's unsynced writes under storage pressure.
    void navigator.storage?.persist?.().catch(() => false);

    engine.kick();
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the database and socket are external resources this effect opens; render needs their handle
    setOpened({ session: `${userId}:${token}`, workspace: { db, engine, ctx, socket } });
    return () => {
      window.removeEventListener('online', handleOnline);
      document.removeEventListener('visibilitychange', handleVisibility);
      stopPresence();
      engine.stop();
      socket.close();
      db.close();
    };
  }, [userId, token]);

  const current = opened && opened.session === session ? opened.workspace : null;
  return (
    <WorkspaceContext.Provider value={current}>
      {current ? <CurrentUserMirror workspace={current} /> : null}
      {children}
    </WorkspaceContext.Provider>
  );
}

const mirroredFields = ['name', 'email', 'role', 'department', 'avatar'] as const;

/** Keeps the stored session's user equal to the server's view of it, so an offline start shows the latest name. */
function CurrentUserMirror({ workspace }: { workspace: Workspace }) {
  const { user, setUser } = useAuth();
  const local = useLiveQuery(() => workspace.db.users.get(workspace.ctx.userId), [workspace]);
  useEffect(() => {
    if (!local || !user || local.pending) return;
    if (mirroredFields.every((field) => local[field] === user[field])) return;
    const { pending: _pending, ...serverUser } = local;
    setUser(serverUser satisfies User);
  }, [local, user, setUser]);
  return null;
}
