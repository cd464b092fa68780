import {
  formatFileSize,
  uuidv7,
  type Attachment,
  type AttachmentKind,
  type MutationArgs,
  type MutationName,
  type Task,
  type UserRef,
} from '@office/sync-protocol';
import type { EntityTableName, LocalChatMessage, WorkspaceDb } from '../data/db';

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
const taskRow = (args: { id: string }) => [{ table: 'tasks' as const, key: args.id }];
const chatRow = (args: { id: string }) => [{ table: 'chatMessages' as const, key: args.id }];

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
      const task = await db.tasks.get(args.id);
      if (!task) return;
      const entryId = uuidv7();
      await db.tasks.update(args.id, {
        status: args.status,
        updatedAt: nowIso(),
        statusHistory: [
          ...task.statusHistory,
          {
            _id: entryId,
            id: entryId,
            status: args.status,
            updatedBy: await userRef(db, ctx.userId),
            updatedAt: nowIso(),
            note: args.note?.trim() || null,
            superseded: false,
          },
        ],
        pending: 1,
      });
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
      await db.chatMessages.put(
        await localChatMessage(db, ctx, { id: args.id, text: args.text.trim(), type: 'text', attachments: [] }),
      );
    },
  },
  'chat.sendFiles': {
    touches: chatRow,
    async apply(db, args, ctx) {
      // Until the upload, the files live only in the outbox: shown by name and size, not yet openable.
      const attachments: Attachment[] = args.files.map((file, index) => ({
        filename: `${args.id}-${index}`,
        originalName: file.name,
        mimetype: file.type,
        mimeType: file.type,
        url: '',
        size: file.size,
        kind: localKind(file.name, file.type),
        formattedSize: formatFileSize(file.size),
      }));
      await db.chatMessages.put(
        await localChatMessage(db, ctx, {
          id: args.id,
          text: (args.text ?? '').trim(),
          type: 'file',
          attachments,
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
};

/** Runs a mutator by name, for replays where the name is data. */
export function applyMutator(db: WorkspaceDb, name: MutationName, args: unknown, ctx: MutatorContext): Promise<void> {
  // The args were validated against this name's schema when the entry was queued.
  return (mutators[name] as Mutator<MutationName>).apply(db, args as MutationArgs<MutationName>, ctx);
}
