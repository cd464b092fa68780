import { io, type Socket } from 'socket.io-client';
import { socketReconnection, type ClientToServerEvents, type ServerToClientEvents } from '@office/sync-protocol';

export type RealtimeSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/**
 * The app's one Socket.IO connection, authenticated in the handshake (never a query string). The token
 * is read at every handshake, so a reconnect after a token renewal presents the new one.
 */
export function connectRealtime(getToken: () => string | null): RealtimeSocket {
  return io({
    path: '/socket.io',
    auth: (callback) => callback({ token: getToken() }),
    reconnection: true,
    reconnectionAttempts: Infinity,
    ...socketReconnection,
  });
}
