import { io, type Socket } from 'socket.io-client';
import { socketReconnection, type ClientToServerEvents, type ServerToClientEvents } from '@office/sync-protocol';

export type RealtimeSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** The app's one Socket.IO connection, authenticated in the handshake (never a query string). */
export function connectRealtime(token: string): RealtimeSocket {
  return io({
    path: '/socket.io',
    auth: { token },
    reconnection: true,
    reconnectionAttempts: Infinity,
    ...socketReconnection,
  });
}
