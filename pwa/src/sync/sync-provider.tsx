import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { User } from '@office/sync-protocol';
import { api } from '../api/http';
import { useAuth } from '../app/auth/use-auth';
import { dispatchAvatarUpdated } from '../app/auth/avatar-events';
import { openWorkspaceDb } from '../data/db';
import { applyPresenceSnapshot, reportPresence } from '../realtime/presence';
import { connectRealtime } from '../realtime/socket';
import { whenIdle } from '../app/when-idle';
import { SyncEngine } from './engine';
import { httpTransport } from './transport';
import { WindowKeeper } from './window-keeper';
import { persistAfterFirstDownload } from './storage';
import { WorkspaceContext, type Workspace } from './sync-context';

/** Opens the signed-in user's database, starts the sync loop and the socket, and tears them down on sign-out. */
export function SyncProvider({ children }: { children: ReactNode }) {
  const { user, token } = useAuth();
  const userId = user?.id ?? null;
  const signedIn = userId !== null && token !== null;
  // The workspace belongs to one signed-in user; a stale one is never handed to screens. A renewed token
  // (after a password change) keeps it open, so the screens keep their state.
  const [opened, setOpened] = useState<{ userId: string; workspace: Workspace } | null>(null);
  // The token the socket presents at its next handshake, and the one its connection was opened with.
  const tokenRef = useRef(token);
  const socketTokenRef = useRef<string | null>(null);

  useEffect(() => {
    tokenRef.current = token;
  }, [token]);

  useEffect(() => {
    if (!userId || !signedIn) return undefined;
    const db = openWorkspaceDb(userId);
    const ctx = { userId };
    const engine = new SyncEngine(db, ctx, httpTransport, {
      locks: typeof navigator.locks === 'undefined' ? undefined : navigator.locks,
      isOnline: () => navigator.onLine,
    });
    // After each sync, in idle time: the device keeps to its window of the history (issue 46).
    const keeper = new WindowKeeper(db, userId, httpTransport, { whenIdle: (run) => void whenIdle(run) });
    const stopKeeping = engine.subscribe(() => {
      if (engine.getState().phase !== 'idle') return;
      keeper.schedule();
      // The first download is in: ask the browser to keep it (once).
      void persistAfterFirstDownload(db).catch(() => undefined);
    });
    socketTokenRef.current = tokenRef.current;
    const socket = connectRealtime(() => tokenRef.current);

    socket.on('connect', () => {
      engine.socketConnected();
      // Typing in direct messages reaches the rooms of the user's conversations.
      socket.emit('join-conversations');
    });
    const stopPresence = reportPresence(socket);
    socket.on('connect_error', (error) => {
      // A refused handshake may mean the session ended (or a reset ended it); /auth/me answers 401 then, which signs out.
      const code = (error as Error & { data?: { code?: string } }).data?.code;
      if (code === 'unauthenticated' || code === 'password_reset') void api.get('/auth/me').catch(() => undefined);
    });
    socket.on('disconnect', (reason) => {
      engine.socketDisconnected();
      // The server ended the connection (restart, account deleted, password changed): Socket.IO does not
      // retry that by itself. Reconnect; a handshake refused for an ended session signs out (above).
      if (reason === 'io server disconnect') socket.connect();
    });
    socket.on('sync.change', ({ seq, change }) => void engine.receiveLive(seq, change));
    socket.on('sync.poke', engine.pullSoon);
    socket.on('user-online', ({ userId: id }) => void db.users.update(id, { status: 'online' }));
    socket.on('user-offline', ({ userId: id, lastSeen }) => void db.users.update(id, { status: 'offline', lastSeen }));
    socket.on(
      'user-presence-update',
      ({ userId: id, status, lastSeen }) => void db.users.update(id, { status, lastSeen }),
    );
    socket.on('presence.snapshot', ({ present }) => void applyPresenceSnapshot(db, present));

    socket.on('avatar-updated', ({ userId: id, avatar }) => {
      void db.users.update(id, { avatar }).then(() => dispatchAvatarUpdated(id));
    });

    const handleOnline = () => engine.kick();
    const handleVisibility = () => {
      if (document.visibilityState === 'visible') engine.kick();
    };
    window.addEventListener('online', handleOnline);
    document.addEventListener('visibilitychange', handleVisibility);
    engine.kick();
    setOpened({ userId, workspace: { db, engine, ctx, socket } });
    return () => {
      setOpened(null);
      window.removeEventListener('online', handleOnline);
      document.removeEventListener('visibilitychange', handleVisibility);
      stopPresence();
      stopKeeping();
      keeper.stop();
      engine.stop();
      socket.close();
      db.close();
    };
  }, [userId, signedIn]);

  const current = signedIn && opened?.userId === userId ? opened.workspace : null;

  // A renewed token: the server has ended the connection opened with the old one, so hand-shake again.
  useEffect(() => {
    if (!current || token === null || socketTokenRef.current === token) return;
    socketTokenRef.current = token;
    current.socket.disconnect().connect();
  }, [current, token]);

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
