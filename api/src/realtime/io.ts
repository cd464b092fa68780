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
import { loadCurrent, principalsOf } from '../domain/sync/entities';
import { PresenceTracker } from './presence';
import { handleConversationEvents } from './conversations';
import { meterEvents, socketGuards } from './socket-guards';
import type { IoServer, IoSocket, RoomEvent } from './types';

export interface Realtime {
  io: IoServer;
  presence: PresenceTracker;
  /** Sends committed changes to the sockets allowed to see them, then the spec events of the commands that made them. */
  publish(changes: ChangeRef[], announcements: Announcement[]): Promise<void>;
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
     * Sends a committed batch's events: to this node's sockets, and to the other nodes' in one message. The adapter
     * relays each emit as a NOTIFY of its own, each a statement on whichever connection of the pool is free: a pushed
     * batch of 100 chat messages made 100 of them, and the other nodes heard them out of order.
     */
    const deliverLocally = (events: RoomEvent[]): void => {
      for (const { to, except, event, payload } of events) {
        if (!heardHere(to)) continue;
        // RoomEvent carries any event of the spec by name; emit's overloads cannot see the pairing.
        (io.local.to(to).except(except ?? []).emit as (event: string, payload: unknown) => boolean)(event, payload);
      }
    };
    const deliver = (events: RoomEvent[]): void => {
      if (!events.length) return;
      deliverLocally(events);
      if (pool) io.serverSideEmit('relay', events);
    };
    if (pool) io.on('relay', deliverLocally);

    /**
     * Every change goes to exactly the rooms a pull would give it to, in commit order, so a client that was
     * connected since its last pull holds everything up to a change's seq once it has applied it (no pull).
     * A change that a later one of the same batch covers (same entity, an audience it includes) is not sent:
     * the later one carries the newest state to the same people (a burst of queued comments on one task sends
     * the task once, not once per comment, each with every comment). The spec's events follow the changes.
     */
    const publish = async (changes: ChangeRef[], announcements: Announcement[]): Promise<void> => {
      // With one node, a change nobody here may see is neither loaded nor encoded, nor compared with the others (a
      // change that covers one somebody hears is heard too); other nodes hear every change.
      const heard = pool
        ? changes
        : changes.filter((ref) => heardHere([...ref.audience, ...(ref.formerAudience ?? [])]));
      const lastOf = new Map(heard.map((ref) => [`${ref.entity}:${ref.id}`, ref]));
      const coveredLater = (ref: ChangeRef): boolean => {
        const last = lastOf.get(`${ref.entity}:${ref.id}`);
        return (
          last !== undefined &&
          last !== ref &&
          ref.op === 'put' &&
          last.op === 'put' &&
          !ref.formerAudience?.length &&
          ref.audience.every((principal) => last.audience.includes(principal))
        );
      };
      const sent = heard.filter((ref) => !coveredLater(ref));
      const states = await loadCurrent(
        app.db,
        sent.filter((ref) => !ref.state),
      );
      const events: RoomEvent[] = [];
      for (const ref of sent) {
        const current = ref.op === 'put' ? (ref.state ?? states.get(`${ref.entity}:${ref.id}`)) : undefined;
        const gone = { entity: ref.entity, op: 'delete' as const, id: ref.id };
        if (!current) {
          const reached = [...ref.audience, ...(ref.formerAudience ?? [])];
          if (reached.length)
            events.push({ to: reached, event: 'sync.change', payload: { seq: ref.seq, change: gone } });
          continue;
        }
        if (ref.audience.length)
          events.push({ to: ref.audience, event: 'sync.change', payload: { seq: ref.seq, change: current } });
        // Those who lost sight of it remove it, as their pull would.
        const lost = (ref.formerAudience ?? []).filter((p) => !ref.audience.includes(p));
        if (lost.length)
          events.push({
            to: lost,
            except: ref.audience,
            event: 'sync.change',
            payload: { seq: ref.seq, change: gone },
          });
      }
      for (const { to, event, payload } of announcements) events.push({ to, event, payload });
      deliver(events);
    };

    app.decorate('realtime', {
      io,
      presence,
      publish,
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
      // The sockets' last status writes (made as they went) land before the database closes.
      void io.close(() => void presence.settled().then(() => hookDone(), hookDone));
    });
    // One node: ready once the last run's presence is cleared, before any socket connects. Several nodes: the
    // others' people are connected now, so only the reconciliation clears what a dead node left.
    if (pool) done();
    else presence.resetAll().then(() => done(), done);
  },
  { name: 'realtime', dependencies: ['db', 'auth', 'drain', 'rate-limit'] },
);
