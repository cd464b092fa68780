import type { Server, Socket } from 'socket.io';
import type { Actor, ClientToServerEvents, ServerToClientEvents } from '@office/sync-protocol';

/** What the handshake leaves on each socket. */
interface SocketData {
  actor: Actor;
  /** The session the handshake's token names. */
  sessionId: string;
}
export type IoServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
export type IoSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
