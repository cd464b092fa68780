import type { Server, Socket } from 'socket.io';
import type { Actor, ClientToServerEvents, ServerToClientEvents } from '@office/sync-protocol';

/** What the handshake leaves on each socket. */
interface SocketData {
  actor: Actor;
  /** The session the handshake's token names. */
  sessionId: string;
}

/** An event for the sockets in some rooms, on whichever node they are. */
export interface RoomEvent {
  to: string[];
  except?: string[];
  event: string;
  payload: unknown;
}

/** What nodes tell each other through the adapter. */
export interface ServerSideEvents {
  /** A committed batch's events, for the other nodes' sockets, in the order the sending node emitted them. */
  relay(events: RoomEvent[]): void;
}

export type IoServer = Server<ClientToServerEvents, ServerToClientEvents, ServerSideEvents, SocketData>;
export type IoSocket = Socket<ClientToServerEvents, ServerToClientEvents, ServerSideEvents, SocketData>;
