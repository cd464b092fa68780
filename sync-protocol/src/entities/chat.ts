import { z } from 'zod';
import { idSchema } from '../ids';
import { roles } from './user';
import { messageReactionSchema } from './reaction';

/** How an attachment is shown (spec section 3). */
export const attachmentKinds = ['image', 'video', 'audio', 'pdf', 'document', 'archive', 'other'] as const;
export type AttachmentKind = (typeof attachmentKinds)[number];

/** A file attached to a message. */
export const attachmentSchema = z.object({
  filename: z.string(),
  originalName: z.string(),
  mimetype: z.string(),
  mimeType: z.string(),
  url: z.string(),
  size: z.number().int(),
  kind: z.enum(attachmentKinds),
  formattedSize: z.string(),
});
export type Attachment = z.infer<typeof attachmentSchema>;

/** A group chat message with its author (spec section 3). */
export const chatMessageSchema = z.object({
  _id: idSchema,
  id: idSchema,
  userId: z.object({
    _id: idSchema,
    id: idSchema,
    name: z.string(),
    avatar: z.string().nullable(),
    role: z.enum(roles),
  }),
  userName: z.string(),
  userAvatar: z.string().nullable(),
  text: z.string(),
  type: z.enum(['text', 'file']),
  timestamp: z.string(),
  edited: z.boolean(),
  attachments: z.array(attachmentSchema),
  reactions: z.array(messageReactionSchema),
  version: z.number().int(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** A size as people read it: Bytes, KB, MB or GB (spec section 3). */
export function formatFileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} Bytes`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Math.round(value * 100) / 100} ${units[unit]}`;
}
