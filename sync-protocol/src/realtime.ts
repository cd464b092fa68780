import type { Change, Cursor } from './pull';
import type { PresenceStatus } from './entities/user';
import type { DirectMessage } from './entities/direct';
import type { Notification } from './entities/notification';

/** A direct-message conversation named in a socket event. */
export interface ConversationRef {
  conversationId: string;
}

/** Events the server sends on Socket.IO. Spec events keep the spec's names; ours are dotted. */
export interface ServerToClientEvents {
  'sync.poke': (payload: { version: number }) => void;
  /**
   * A committed change, in the change log's order: `cursor` is its place there, which a client whose stream of these
   * is complete since its last pull may move its cursor to without pulling.
   */
  'sync.change': (payload: { cursor: Cursor; change: Change }) => void;
  'user-online': (payload: { userId: string }) => void;
  'user-offline': (payload: { userId: string; lastSeen: string }) => void;
  'user-presence-update': (payload: { userId: string; status: PresenceStatus; lastSeen: string | null }) => void;
  /**
   * Everyone online or away as the socket connects: presence is not in the change log, so a device
   * that was disconnected (a reload, a network drop) corrects what it missed; anyone absent is offline.
   */
  'presence.snapshot': (payload: { present: { userId: string; status: PresenceStatus }[] }) => void;
  /** Someone is typing in the team chat (conversationId null) or a conversation. */
  'user-typing': (payload: { userId: string; userName: string; conversationId: string | null }) => void;
  'stop-typing': (payload: { userId: string; conversationId: string | null }) => void;
  /** A direct message was sent; both participants' devices hear it. */
  'new-message': (payload: { message: DirectMessage; conversationId: string }) => void;
  /** A participant read the conversation up to `readAt` (through `messageId` when one was named). */
  'message-read': (payload: {
    conversationId: string;
    messageId: string | null;
    userId: string;
    readAt: string;
  }) => void;
  'delete-message': (payload: { conversationId: string; messageId: string }) => void;
  /** A notification for this user was created (it also arrives through sync). */
  notification: (payload: { notification: Notification }) => void;
  /** A user's photo changed: lists, chats and conversations show the new one without a reload. */
  'avatar-updated': (payload: { userId: string; avatar: string | null }) => void;
  error: (payload: { code: string; message: string }) => void;
}

/** The answer of a `send-message` acknowledgement. */
export type SendMessageAck = { message: DirectMessage } | { error: { code: string; message: string } };

/** Events a client may send on Socket.IO. */
export interface ClientToServerEvents {
  'update-presence': (payload: { status: PresenceStatus }) => void;
  /** Joins the rooms of every conversation the user takes part in. */
  'join-conversations': () => void;
  /** The spec names only the id: a bare conversation id works as well as `{ conversationId }`. */
  'join-conversation': (payload: ConversationRef | string) => void;
  'leave-conversation': (payload: ConversationRef | string) => void;
  'send-message': (
    payload: ConversationRef & { text: string; id?: string },
    ack?: (answer: SendMessageAck) => void,
  ) => void;
  'typing-start': (payload: ConversationRef | string) => void;
  'typing-stop': (payload: ConversationRef | string) => void;
  'mark-message-read': (payload: ConversationRef & { messageId: string }) => void;
}

/** Rooms: one per user, one per role, the whole team, and one per conversation. */
export const rooms = {
  user: (id: string) => `user:${id}`,
  role: (role: string) => `role:${role}`,
  team: 'team',
  conversation: (id: string) => `conversation:${id}`,
} as const;
