import fp from 'fastify-plugin';
import { Server } from 'socket.io';
import { createAdapter } from '@socket.io/postgres-adapter';
import { poolOf } from '../db/postgres';
import { presenceStatuses, rooms, timeZoneSchema, type Actor } from '@office/sync-protocol';
import type { FastifyInstance } from 'fastify';
import type { ChangeRef } from '../domain/change-log';
import { runCommand, type Announcement } from '../domain/commands';
import { preferencesOf, setNotificationPreferencesCommand } from '../domain/notifications/preferences';
import { DomainError } from '../domain/errors';
import { speaksOurProtocol } from '../plugins/protocol-version';
import { formatPosition } from '../db/change-feed';
import { loadCurrent, principalsOf } from '../domain/sync/entities';
import { changeEvents } from './change-events';
import { ChangeTailer } from './change-tailer';
import { PresenceTracker } from './presence';
import { handleConversationEvents } from './conversations';
import { meterEvents, socketGuards } from './socket-guards';
import type { IoServer, IoSocket, RoomEvent } from './types';

export interface Realtime {
  io: IoServer;
  presence: PresenceTracker;
  /** Sends committed changes to the sockets allowed to see them, then the spec events of the commands that made them. */
  publish(changes: ChangeRef[], announcements: Announcement[]): Promise<void>;
  /**
   * Resolves once this node's live feed has read every change that could be read at the call (the tests wait on
   * it): with several nodes it reads the log on its own; with one, a change goes out with its commit.
   */
  caughtUp(): Promise<void>;
  /** Drops the sockets of ended sessions: one session's (logout), or a user's all but `except` (password change, deactivation). */
  dropSessions(ended: { sessionId: string } | { userId: string; except?: string }): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    realtime: Realtime;
  }
}

/** Each socket also sits in its session's room, so ending a session reaches exactly its sockets. */
const sessionRoom = (sessionId: string) => `session:${sessionId}`;

/**
 * The time zone a device's handshake names becomes the person's, when it is a known zone and a new one: a
 * write only when it changes (a person who travels, a first sign-in), never a queued write on the device.
 */
async function adoptTimeZone(app: FastifyInstance, actor: Actor, given: unknown): Promise<void> {
  const timeZone = timeZoneSchema.safeParse(given);
  if (!timeZone.success) return;
  try {
    if ((await preferencesOf(app.db, [actor.id])).get(actor.id)?.timeZone === timeZone.data) return;
    await runCommand(app.db, app.flush, actor, setNotificationPreferencesCommand, { timeZone: timeZone.data });
  } catch (error) {
    app.log.error({ err: error }, 'storing the time zone of a device failed');
  }
}

/** How often, with several nodes, people marked present but connected nowhere are put offline. */
const PRESENCE_RECONCILE_MS = 60_000;

export const realtimePlugin = fp(
  (app, _opts, done) => {
    // Connection-state recovery stays off (the default): missed changes come back through pull, never a replayed buffer.
    const pool = poolOf(app.db);
    const io: IoServer = new Server(app.server, {
      path: '/socket.io',
      serveClient: false,
      // On PostgreSQL several nodes serve the workspace: every event reaches the sockets of every node (LISTEN/NOTIFY).
      ...(pool
        ? {
            adapter: createAdapter(pool, {
              errorHandler: (error) => app.log.error({ err: error }, 'realtime relay failed'),
            }),
          }
        : {}),
      // A handshake while the server drains is refused at the transport, which clients retry with backoff.
      allowRequest: (_request, answer) => answer(null, !app.isDraining()),
    });
    const presence = new PresenceTracker(
      app.db,
      pool ? async (userId) => (await io.in(rooms.user(userId)).fetchSockets()).length > 0 : undefined,
    );

    const admit = async (socket: IoSocket): Promise<void> => {
      const token: unknown = socket.handshake.auth?.token;
      if (!speaksOurProtocol(socket.handshake.auth?.protocolVersion)) throw new DomainError('client_outdated');
      const session = await app.verifyAccessToken(typeof token === 'string' ? token : undefined);
      if (session.passwordChangeRequired) throw new DomainError('password_change_required');
      socket.data.actor = session.actor;
      socket.data.sessionId = session.id;
    };
    io.use((socket, next) => {
      admit(socket).then(
        () => next(),
        (error: unknown) => {
          const body =
            error instanceof DomainError ? error.toBody() : { code: 'unauthenticated', message: 'Unauthorized' };
          next(Object.assign(new Error(body.message), { data: body }));
        },
      );
    });

    io.on('connection', (socket: IoSocket) => {
      const { actor, sessionId } = socket.data;
      void socket.join([...principalsOf(actor), sessionRoom(sessionId)]);
      presence
        .connect(actor.id, socket.id)
        .then(async (first) => {
          if (first) io.to(rooms.team).emit('user-online', { userId: actor.id });
          socket.emit('presence.snapshot', { present: await presence.present() });
        })
        .catch((error: unknown) => app.log.error({ err: error }, 'storing a connection failed'));
      void adoptTimeZone(app, actor, socket.handshake.auth?.timeZone);

      meterEvents(app, socket);
      const { guarded } = socketGuards(app, socket);
      socket.on(
        'update-presence',
        guarded(async (payload) => {
          const status = presenceStatuses.find((s) => s === payload?.status);
          if (!status || status === 'offline') {
            socket.emit('error', { code: 'invalid_input', message: 'Presence must be online or away.' });
            return;
          }
          const lastSeen = await presence.store(actor.id, status);
          io.to(rooms.team).emit('user-presence-update', { userId: actor.id, status, lastSeen });
        }),
      );

      handleConversationEvents(app, socket);

      socket.on('disconnect', () => {
        presence.disconnect(actor.id, socket.id).then(
          (lastSeen) => {
            if (lastSeen) io.to(rooms.team).emit('user-offline', { userId: actor.id, lastSeen });
          },
          (error: unknown) => app.log.error({ err: error }, 'storing a disconnect failed'),
        );
      });
    });

    /**
     * Whether a socket of this node sits in one of these rooms. Socket.IO encodes an event before it looks for its
     * sockets: a person who is offline (their own room), or a team with nobody connected, would cost an encoding
     * per change for nothing.
     */
    const heardHere = (to: string[]): boolean => to.some((room) => io.of('/').adapter.rooms.has(room));

    /**
     * Sends a committed batch's spec events: to this node's sockets, and to the other nodes' in one message (which
     * also wakes their live feeds). The adapter relays each emit as a NOTIFY of its own, each a statement on whichever
     * connection of the pool is free: a pushed batch of 100 chat messages made 100 of them, and the other nodes heard
     * them out of order.
     */
    const deliverLocally = (events: RoomEvent[]): void => {
      for (const { to, except, event, payload } of events) {
        if (!heardHere(to)) continue;
        // RoomEvent carries any event of the spec by name; emit's overloads cannot see the pairing.
        (io.local.to(to).except(except ?? []).emit as (event: string, payload: unknown) => boolean)(event, payload);
      }
    };

    /**
     * Several nodes (PostgreSQL): each reads the change log below the visibility horizon and sends its own sockets
     * the changes in the log's order (change-tailer.ts); a commit anywhere wakes them all.
     */
    const tailer = pool
      ? new ChangeTailer({
          db: app.db,
          heardHere,
          deliver: deliverLocally,
          onError: (error) => app.log.error({ err: error }, 'reading the live feed failed'),
        })
      : null;
    if (pool)
      io.on('relay', (events) => {
        deliverLocally(events);
        tailer?.wake();
      });

    /**
     * After a commit. One node (SQLite): its writes commit one at a time, in the log's order, and this is called in
     * that order, so the changes go straight to the sockets that may see them: a client connected since its last
     * pull holds everything up to a change's place once it has applied it (no pull). The spec's events follow the
     * changes. Several nodes: the spec's events go out now, the changes with every node's live feed.
     */
    const publish = async (changes: ChangeRef[], announcements: Announcement[]): Promise<void> => {
      const events: RoomEvent[] = announcements.map(({ to, event, payload }) => ({ to, event, payload }));
      if (pool) {
        deliverLocally(events);
        tailer?.wake();
        io.serverSideEmit('relay', events);
        return;
      }
      const entries = changes
        .map((ref) => ({
          cursor: formatPosition({ xid: 0n, seq: ref.seq }),
          entity: ref.entity,
          id: ref.id,
          principals: [...new Set([...ref.audience, ...(ref.formerAudience ?? [])])],
          state: ref.state,
        }))
        // A change nobody here may see is neither loaded nor encoded, nor compared with the others.
        .filter((entry) => heardHere(entry.principals));
      const states = await loadCurrent(
        app.db,
        changes.filter((ref) => !ref.state && heardHere([...ref.audience, ...(ref.formerAudience ?? [])])),
      );
      for (const entry of entries) if (entry.state) states.set(`${entry.entity}:${entry.id}`, entry.state);
      deliverLocally([...changeEvents(entries, states), ...events]);
    };

    app.decorate('realtime', {
      io,
      presence,
      publish,
      caughtUp: () => tailer?.caughtUp() ?? Promise.resolve(),
      dropSessions: (ended) => {
        if ('sessionId' in ended) io.in(sessionRoom(ended.sessionId)).disconnectSockets(true);
        else if (ended.except)
          io.in(rooms.user(ended.userId)).except(sessionRoom(ended.except)).disconnectSockets(true);
        else io.in(rooms.user(ended.userId)).disconnectSockets(true);
      },
    });
    app.addHook('preClose', (hookDone) => {
      io.local.disconnectSockets(true);
      hookDone();
    });
    // Several nodes: a node that died left its people marked present; the others put that right.
    const reconciling = pool
      ? setInterval(() => {
          void (async () => {
            const connected = new Set((await io.fetchSockets()).map((socket) => socket.data.actor.id));
            for (const { userId, lastSeen } of await presence.reconcile(connected))
              io.to(rooms.team).emit('user-offline', { userId, lastSeen });
          })().catch((error: unknown) => app.log.error({ err: error }, 'reconciling presence failed'));
        }, PRESENCE_RECONCILE_MS)
      : null;
    reconciling?.unref();
    app.addHook('onClose', (_instance, hookDone) => {
      if (reconciling) clearInterval(reconciling);
      tailer?.stop();
      // The sockets' last status writes (made as they went) land before the database closes.
      void io.close(() => void presence.settled().then(() => hookDone(), hookDone));
    });
    // One node: ready once the last run's presence is cleared, before any socket connects. Several nodes: the
    // others' people are connected now, so only the reconciliation clears what a dead node left.
    if (tailer) tailer.start().then(() => done(), done);
    else presence.resetAll().then(() => done(), done);
  },
  { name: 'realtime', dependencies: ['db', 'auth', 'drain', 'rate-limit'] },
);
