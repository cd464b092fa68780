import fp from 'fastify-plugin';
import { Server, type Socket } from 'socket.io';
import {
  presenceStatuses,
  rooms,
  type Actor,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from '@office/sync-protocol';
import type { ChangeRef } from '../domain/change-log';
import type { Announcement } from '../domain/commands';
import { DomainError } from '../domain/errors';
import { loadCurrent, principalsOf } from '../domain/sync/entities';
import { PresenceTracker } from './presence';
import { handleConversationEvents } from './conversations';

interface SocketData {
  actor: Actor;
}
export type IoServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
export type IoSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

export interface Realtime {
  io: IoServer;
  presence: PresenceTracker;
  /** Sends committed changes to the sockets allowed to see them. */
  publish(changes: ChangeRef[]): void;
  /** Emits a committed command's spec event to its rooms. */
  announce(announcement: Announcement): void;
  /** Drops every socket of a user (deactivation, password change). */
  disconnectUser(userId: string): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    realtime: Realtime;
  }
}

export const realtimePlugin = fp(
  (app, _opts, done) => {
    // Connection-state recovery stays off (the default): missed changes come back through pull, never a replayed buffer.
    const io: IoServer = new Server(app.server, {
      path: '/socket.io',
      serveClient: false,
      // A handshake while the server drains is refused at the transport, which clients retry with backoff.
      allowRequest: (_request, answer) => answer(null, !app.isDraining()),
    });
    const presence = new PresenceTracker(app.db);
    presence.resetAll();

    io.use((socket, next) => {
      const token: unknown = socket.handshake.auth?.token;
      try {
        const user = app.verifyAccessToken(typeof token === 'string' ? token : undefined);
        socket.data.actor = { id: user.id, role: user.role };
        next();
      } catch (error) {
        const body =
          error instanceof DomainError ? error.toBody() : { code: 'unauthenticated', message: 'Unauthorized' };
        next(Object.assign(new Error(body.message), { data: body }));
      }
    });

    io.on('connection', (socket: IoSocket) => {
      const { actor } = socket.data;
      void socket.join(principalsOf(actor));
      if (presence.connect(actor.id, socket.id)) io.to(rooms.team).emit('user-online', { userId: actor.id });

      socket.on('update-presence', (payload) => {
        const status = presenceStatuses.find((s) => s === payload?.status);
        if (!status || status === 'offline') {
          socket.emit('error', { code: 'invalid_input', message: 'Presence must be online or away.' });
          return;
        }
        const lastSeen = presence.store(actor.id, status);
        io.to(rooms.team).emit('user-presence-update', { userId: actor.id, status, lastSeen });
      });

      handleConversationEvents(app, socket);

      socket.on('disconnect', () => {
        const lastSeen = presence.disconnect(actor.id, socket.id);
        if (lastSeen) io.to(rooms.team).emit('user-offline', { userId: actor.id, lastSeen });
      });
    });

    /**
     * Every change goes to exactly the rooms a pull would give it to, in commit order, so a client that was
     * connected since its last pull holds everything up to a change's seq once it has applied it (no pull).
     */
    const publish = (changes: ChangeRef[]): void => {
      const states = loadCurrent(
        app.db,
        changes.filter((ref) => !ref.state),
      );
      for (const ref of changes) {
        const current = ref.op === 'put' ? (ref.state ?? states.get(`${ref.entity}:${ref.id}`)) : undefined;
        const gone = { entity: ref.entity, op: 'delete' as const, id: ref.id };
        if (!current) {
          const reached = [...ref.audience, ...(ref.formerAudience ?? [])];
          if (reached.length) io.to(reached).emit('sync.change', { seq: ref.seq, change: gone });
          continue;
        }
        if (ref.audience.length) io.to(ref.audience).emit('sync.change', { seq: ref.seq, change: current });
        // Those who lost sight of it remove it, as their pull would.
        const lost = (ref.formerAudience ?? []).filter((p) => !ref.audience.includes(p));
        if (lost.length) io.to(lost).except(ref.audience).emit('sync.change', { seq: ref.seq, change: gone });
      }
    };

    const announce = ({ to, event, payload }: Announcement): void => {
      // The union of events and payloads is matched by the Announcement type; emit cannot see the pairing.
      (io.to(to).emit as (event: string, payload: unknown) => boolean)(event, payload);
    };

    app.decorate('realtime', {
      io,
      presence,
      publish,
      announce,
      disconnectUser: (userId: string) => io.in(rooms.user(userId)).disconnectSockets(true),
    });
    app.addHook('preClose', (hookDone) => {
      io.local.disconnectSockets(true);
      hookDone();
    });
    app.addHook('onClose', (_instance, hookDone) => {
      void io.close(() => hookDone());
    });
    done();
  },
  { name: 'realtime', dependencies: ['db', 'auth', 'drain'] },
);
