import { io, type Socket } from 'socket.io-client';
import {
  PROTOCOL_VERSION,
  socketReconnection,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from '@office/sync-protocol';
import { markClientOutdated } from '../app/client-outdated';

/** The browser's time zone: the person's quiet hours and 08:00 digest follow it. */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

export type RealtimeSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/**
 * The app's one Socket.IO connection, authenticated in the handshake (never a query string). The token
 * is read at every handshake, so a reconnect after a token renewal presents the new one.
 */
export function connectRealtime(getToken: () => string | null): RealtimeSocket {
  const socket: RealtimeSocket = io({
    path: '/socket.io',
    // The browser's time zone travels with the handshake: quiet hours and the 08:00 digest follow it.
    auth: (callback) =>
      callback({
        token: getToken(),
        protocolVersion: PROTOCOL_VERSION,
        timeZone: browserTimeZone(),
      }),
    // A websocket first: it stays on the node it reached, so nodes behind a balancer need no sticky sessions.
    // Where a network refuses websockets, long-polling follows, which does (README, Scale-out).
    transports: ['websocket', 'polling'],
    tryAllTransports: true,
    reconnection: true,
    reconnectionAttempts: Infinity,
    ...socketReconnection,
  });
  socket.on('connect_error', (error) => {
    // The server refuses this build's protocol in the handshake: offer the new version.
    if ((error as { data?: { code?: unknown } }).data?.code === 'client_outdated') markClientOutdated();
  });
  return socket;
}
