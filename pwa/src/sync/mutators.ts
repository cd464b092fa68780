import {
  conversationIdFor,
  formatFileSize,
  readByMarker,
  uuidv7,
  withReaction,
  type Attachment,
  type AttachmentKind,
  type MutationArgs,
  type MutationName,
  type Participant,
  type QueuedFile,
  type Task,
  type UserRef,
} from '@office/sync-protocol';
import type { EntityTableName, LocalChatMessage, LocalDirectMessage, WorkspaceDb } from '../data/db';
import { markerOf, preferencesOf } from '../data/notification-hooks';

/** Who the local write is made by; mutators need it to know "my" rows. */
export interface MutatorContext {
  userId: string;
}

/** The optimistic half of a command: what it does to IndexedDB before the server has seen it. */
export interface Mutator<N extends MutationName> {
  /** The rows this write touches, so they can be restored if the server refuses it. */
  touches(args: MutationArgs<N>, ctx: MutatorContext): { table: EntityTableName; key: string }[];
  /** Applies the change; runs inside a Dexie transaction, again on every rebase. */
  apply(db: WorkspaceDb, args: MutationArgs<N>, ctx: MutatorContext): Promise<void>;
}

type MutatorRegistry = { [N in MutationName]: Mutator<N> };

async function userRef(db: WorkspaceDb, id: string): Promise<UserRef> {
  const user = await db.users.get(id);
  return { _id: id, id, name: user?.name ?? 'Unknown' };
}

const nowIso = () => new Date().toISOString();

/** A message as this device shows it until the server confirms it: by the signed-in user, now, pending. */
async function localChatMessage(
  db: WorkspaceDb,
  ctx: MutatorContext,
  message: { id: string; text: string; type: 'text' | 'file'; attachments: Attachment[] },
): Promise<LocalChatMessage> {
  const author = await db.users.get(ctx.userId);
  const name = author?.name ?? 'Unknown';
  const avatar = author?.avatar ?? null;
  return {
    ...message,
    _id: message.id,
    userId: { _id: ctx.userId, id: ctx.userId, name, avatar, role: author?.role ?? 'employee' },
    userName: name,
    userAvatar: avatar,
    timestamp: nowIso(),
    edited: false,
    reactions: [],
    version: 0,
    pending: 1,
  };
}

/** How a queued file shows before the server has classified it. */
function localKind(name: string, type: string): AttachmentKind {
  const media = (['image', 'video', 'audio'] as const).find((kind) => type.startsWith(`${kind}/`));
  if (media) return media;
  if (/\.pdf$/i.test(name)) return 'pdf';
  if (/\.(zip|rar)$/i.test(name)) return 'archive';
  return /\.(docx?|txt)$/i.test(name) ? 'document' : 'other';
}
/** Queued files as a message shows them until the upload: by name and size, not yet openable. */
const localAttachments = (messageId: string, files: Pick<QueuedFile, 'name' | 'type' | 'size'>[]): Attachment[] =>
  files.map((file, index) => ({
    filename: `${messageId}-${index}`,
    originalName: file.name,
    mimetype: file.type,
    mimeType: file.type,
    url: '',
    size: file.size,
    kind: localKind(file.name, file.type),
    formattedSize: formatFileSize(file.size),
  }));

async function participant(db: WorkspaceDb, id: string): Promise<Participant> {
  const user = await db.users.get(id);
  return {
    _id: id,
    id,
    name: user?.name ?? 'Unknown',
    avatar: user?.avatar ?? null,
    role: user?.role ?? 'employee',
    lastReadAt: null,
  };
}

/**
 * Whether the server's copy of a row this queued write creates is already here: the server holds a message or
 * task by this id only because it applied this write, whose answer has not arrived yet (a live change came
 * first). Its copy, with the server's time, stays: written again as the device's draft, it would wait for the
 * next pull among the unsent ones, and show out of order if the device went offline first.
 */
const heldByServer = <Row extends { version: number }>(row: Row | undefined): row is Row => (row?.version ?? 0) > 0;

/** A direct message as this device shows it until the server confirms it; it becomes the conversation's last. */
async function putLocalDirectMessage(
  db: WorkspaceDb,
  ctx: MutatorContext,
  message: { id: string; conversationId: string; text: string; attachments: Attachment[] },
): Promise<void> {
  const conversation = await db.conversations.get(message.conversationId);
  if (!conversation) return;
  const held = await db.directMessages.get(message.id);
  const sender = await db.users.get(ctx.userId);
  const local: LocalDirectMessage = heldByServer(held)
    ? held
    : {
        _id: message.id,
        id: message.id,
        conversationId: message.conversationId,
        participantIds: conversation.participants.map((p) => p.id),
        sender: { _id: ctx.userId, id: ctx.userId, name: sender?.name ?? 'Unknown', avatar: sender?.avatar ?? null },
        content: message.text,
        text: message.text,
        createdAt: nowIso(),
        attachments: message.attachments,
        reactions: [],
        version: 0,
        pending: 1,
      };
  if (local !== held) await db.directMessages.put(local);
  const { pending: _pending, reactions: _reactions, ...lastMessage } = local;
  await db.conversations.update(message.conversationId, {
    lastMessage,
    lastMessageAt: local.createdAt,
    // Whoever writes has read everything before their own message.
    participants: conversation.participants.map((p) =>
      p.id === ctx.userId ? { ...p, lastReadAt: local.createdAt } : p,
    ),
    pending: 1,
  });
}

const taskRow = (args: { id: string }) => [{ table: 'tasks' as const, key: args.id }];
const chatRow = (args: { id: string }) => [{ table: 'chatMessages' as const, key: args.id }];
const directRows = (args: { id: string; conversationId: string }) => [
  { table: 'directMessages' as const, key: args.id },
  { table: 'conversations' as const, key: args.conversationId },
];

export const mutators: MutatorRegistry = {
  'user.updateDetails': {
    touches: (_args, ctx) => [{ table: 'users', key: ctx.userId }],
    async apply(db, args, ctx) {
      await db.users.update(ctx.userId, {
        name: args.name.trim(),
        email: args.email.trim().toLowerCase(),
        pending: 1,
      });
    },
  },
  'task.create': {
    touches: taskRow,
    async apply(db, args, ctx) {
      if (heldByServer(await db.tasks.get(args.id))) return;
      const at = nowIso();
      const status = args.status ?? 'pending';
      const creator = await userRef(db, ctx.userId);
      const task: Task & { pending: 1 } = {
        _id: args.id,
        id: args.id,
        title: args.title.trim(),
        description: (args.description ?? '').trim(),
        assignedTo: await userRef(db, args.assignedTo),
        assignedBy: creator,
        priority: args.priority ?? 'medium',
        status,
        dueDate: args.dueDate,
        comments: [],
        statusHistory: [
          {
            _id: args.id,
            id: args.id,
            status,
            updatedBy: creator,
            updatedAt: at,
            note: 'Task created',
            superseded: false,
          },
        ],
        statusVersion: 0,
        createdAt: at,
        updatedAt: at,
        version: 0,
        pending: 1,
      };
      await db.tasks.put(task);
    },
  },
  'task.update': {
    touches: taskRow,
    async apply(db, { id, assignedTo, ...fields }) {
      const changes: Partial<Task> = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
      if (assignedTo !== undefined) changes.assignedTo = await userRef(db, assignedTo);
      await db.tasks.update(id, { ...changes, updatedAt: nowIso(), pending: 1 });
    },
  },
  'task.setStatus': {
    touches: taskRow,
    async apply(db, args, ctx) {
      const [task, updatedBy] = await Promise.all([db.tasks.get(args.id), userRef(db, ctx.userId)]);
      if (!task) return;
      const entryId = uuidv7();
      await db.tasks.put({
        ...task,
        status: args.status,
        updatedAt: nowIso(),
        statusHistory: [
          ...task.statusHistory,
          {
            _id: entryId,
            id: entryId,
            status: args.status,
            updatedBy,
            updatedAt: nowIso(),
            note: args.note?.trim() || null,
            superseded: false,
          },
        ],
        pending: 1,
      });
    },
  },
  'task.edit': {
    touches: taskRow,
    // The same two changes as task.update and task.setStatus, in the order the command makes them.
    async apply(db, { status, note, baseStatusVersion, ...fields }, ctx) {
      await mutators['task.update'].apply(db, fields, ctx);
      if (status === undefined) return;
      await mutators['task.setStatus'].apply(
        db,
        {
          id: fields.id,
          status,
          ...(note === undefined ? {} : { note }),
          ...(baseStatusVersion === undefined ? {} : { baseStatusVersion }),
        },
        ctx,
      );
    },
  },
  'task.comment': {
    touches: (args) => [{ table: 'tasks', key: args.taskId }],
    async apply(db, args, ctx) {
      const task = await db.tasks.get(args.taskId);
      if (!task || task.comments.some((comment) => comment.id === args.id)) return;
      const author = await userRef(db, ctx.userId);
      await db.tasks.update(args.taskId, {
        comments: [
          ...task.comments,
          {
            _id: args.id,
            id: args.id,
            userId: ctx.userId,
            userName: author.name,
            text: args.text.trim(),
            createdAt: nowIso(),
          },
        ],
        updatedAt: nowIso(),
        pending: 1,
      });
    },
  },
  'task.delete': {
    touches: taskRow,
    async apply(db, args) {
      await db.tasks.delete(args.id);
    },
  },
  'chat.send': {
    touches: chatRow,
    async apply(db, args, ctx) {
      if (heldByServer(await db.chatMessages.get(args.id))) return;
      await db.chatMessages.put(
        await localChatMessage(db, ctx, { id: args.id, text: args.text.trim(), type: 'text', attachments: [] }),
      );
    },
  },
  'chat.sendFiles': {
    touches: chatRow,
    async apply(db, args, ctx) {
      if (heldByServer(await db.chatMessages.get(args.id))) return;
      // Until the upload, the files live only in the outbox.
      await db.chatMessages.put(
        await localChatMessage(db, ctx, {
          id: args.id,
          text: (args.text ?? '').trim(),
          type: 'file',
          attachments: localAttachments(args.id, args.files),
        }),
      );
    },
  },
  'chat.edit': {
    touches: chatRow,
    async apply(db, args) {
      await db.chatMessages.update(args.id, { text: args.text.trim(), edited: true, pending: 1 });
    },
  },
  'chat.delete': {
    touches: chatRow,
    async apply(db, args) {
      await db.chatMessages.delete(args.id);
    },
  },
  'chat.react': {
    touches: chatRow,
    // A set, not a toggle: applied again on every rebase, it leaves the same reactions. The message is not
    // marked pending (it is sent); the reaction shows as queued from the outbox (use-pending-reactions.ts).
    async apply(db, args, ctx) {
      const message = await db.chatMessages.get(args.id);
      if (!message) return;
      await db.chatMessages.update(args.id, {
        reactions: withReaction(message.reactions, ctx.userId, args.emoji, args.on),
      });
    },
  },
  'dm.start': {
    touches: (args, ctx) => [{ table: 'conversations', key: conversationIdFor(ctx.userId, args.recipientId.trim()) }],
    async apply(db, args, ctx) {
      const recipientId = args.recipientId.trim();
      const id = conversationIdFor(ctx.userId, recipientId);
      if (await db.conversations.get(id)) return;
      // The server orders participants by id; so does this device.
      const ids = [ctx.userId, recipientId].sort();
      await db.conversations.put({
        _id: id,
        id,
        participants: await Promise.all(ids.map((userId) => participant(db, userId))),
        lastMessage: null,
        lastMessageAt: null,
        createdAt: nowIso(),
        version: 0,
        pending: 1,
      });
    },
  },
  'dm.send': {
    touches: directRows,
    async apply(db, args, ctx) {
      await putLocalDirectMessage(db, ctx, { ...args, text: args.text.trim(), attachments: [] });
    },
  },
  'dm.sendFiles': {
    touches: directRows,
    async apply(db, args, ctx) {
      await putLocalDirectMessage(db, ctx, {
        id: args.id,
        conversationId: args.conversationId,
        text: (args.text ?? '').trim(),
        attachments: localAttachments(args.id, args.files),
      });
    },
  },
  'dm.delete': {
    touches: directRows,
    async apply(db, args) {
      await db.directMessages.delete(args.id);
      const conversation = await db.conversations.get(args.conversationId);
      if (conversation?.lastMessage?.id === args.id)
        await db.conversations.update(args.conversationId, { lastMessage: null, pending: 1 });
    },
  },
  'dm.react': {
    touches: (args) => [{ table: 'directMessages', key: args.id }],
    // As chat.react: a set, and the message stays as sent.
    async apply(db, args, ctx) {
      const message = await db.directMessages.get(args.id);
      if (!message) return;
      await db.directMessages.update(args.id, {
        reactions: withReaction(message.reactions, ctx.userId, args.emoji, args.on),
      });
    },
  },
  'dm.markRead': {
    touches: (args) => [{ table: 'conversations', key: args.conversationId }],
    async apply(db, args, ctx) {
      const conversation = await db.conversations.get(args.conversationId);
      if (!conversation) return;
      const through = args.through ? new Date(args.through).toISOString() : nowIso();
      const participants = conversation.participants.map((p) =>
        p.id === ctx.userId && (p.lastReadAt === null || p.lastReadAt < through) ? { ...p, lastReadAt: through } : p,
      );
      await db.conversations.update(args.conversationId, { participants, pending: 1 });
    },
  },
  'notification.markRead': {
    // A stored notice, or a team chat notice (the message's id), which the person's marker lists as read.
    touches: (args, ctx) => [
      { table: 'notifications', key: args.id },
      { table: 'notificationMarkers', key: ctx.userId },
    ],
    async apply(db, args, ctx) {
      // As the server does: what the marker covers is read already, and nothing is written for it.
      const marker = await markerOf(db, ctx.userId);
      const stored = await db.notifications.get(args.id);
      if (stored) {
        if (!stored.read && !readByMarker(marker, stored.createdAt))
          await db.notifications.update(args.id, { read: true, pending: 1 });
        return;
      }
      const message = await db.chatMessages.get(args.id);
      if (!message || message.userId.id === ctx.userId || readByMarker(marker, message.timestamp)) return;
      if (marker.chatReads.includes(args.id)) return;
      await db.notificationMarkers.put({ ...marker, chatReads: [...marker.chatReads, args.id], pending: 1 });
    },
  },
  'notification.markAllRead': {
    // One write, as on the server: the marker moves to what the user had seen (`through`), never back.
    touches: (_args, ctx) => [{ table: 'notificationMarkers', key: ctx.userId }],
    async apply(db, args, ctx) {
      const marker = await markerOf(db, ctx.userId);
      const through = args.through ? new Date(args.through).toISOString() : nowIso();
      if (marker.readThrough !== null && marker.readThrough >= through) return;
      await db.notificationMarkers.put({ ...marker, readThrough: through, pending: 1 });
    },
  },
  'notification.setPreferences': {
    touches: (_args, ctx) => [{ table: 'notificationPreferences', key: ctx.userId }],
    async apply(db, args, ctx) {
      const given = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
      await db.notificationPreferences.put({ ...(await preferencesOf(db, ctx.userId)), ...given, pending: 1 });
    },
  },
};

/** Runs a mutator by name, for replays where the name is data. */
export function applyMutator(db: WorkspaceDb, name: MutationName, args: unknown, ctx: MutatorContext): Promise<void> {
  // The args were validated against this name's schema when the entry was queued.
  return (mutators[name] as Mutator<MutationName>).apply(db, args as MutationArgs<MutationName>, ctx);
}
