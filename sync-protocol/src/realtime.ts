import type { Change } from './pull';
import type { PresenceStatus } from './entities/user';

/** Events the server sends on Socket.IO. Spec events keep the spec's names; ours are dotted. */
export interface ServerToClientEvents {
  'sync.poke': (payload: { version: number }) => void;
  /** A committed change as it happened; `seq` lets a client advance its cursor without pulling. */
  'sync.change': (payload: { seq: number; change: Change }) => void;
  'user-online': (payload: { userId: string }) => void;
  'user-offline': (payload: { userId: string; lastSeen: string }) => void;
  'user-presence-update': (payload: { userId: string; status: PresenceStatus; lastSeen: string | null }) => void;
  /** Someone is typing in the team chat (conversationId null) or a conversation. */
  'user-typing': (payload: { userId: string; userName: string; conversationId: string | null }) => void;
  'stop-typing': (payload: { userId: string; conversationId: string | null }) => void;
  error: (payload: { code: string; message: string }) => void;
}

/** Events a client may send on Socket.IO. */
export interface ClientToServerEvents {
  'update-presence': (payload: { status: PresenceStatus }) => void;
}

/** Rooms: one per user, one per role, and the whole team. */
export const rooms = {
  user: (id: string) => `user:${id}`,
  role: (role: string) => `role:${role}`,
  team: 'team',
} as const;
