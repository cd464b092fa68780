import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { uploadLimits, uploadSyncFieldsSchema, type MutationOutcome } from '@office/sync-protocol';
import type { FilePolicy, StoredFile, UploadStore } from '../domain/chat/uploads';
import { servableType } from '../files/content-type';
import { runCommand, runInTransaction, type Command } from '../domain/commands';
import { DomainError, parseInput } from '../domain/errors';
import { applyClientMutation, claimClient } from '../domain/sync/push';

/** What became of a message with files: a queued mutation's outcome, or the command's result. */
export type FileMessageResult<O> = { queued: true; outcome: MutationOutcome | 'gap' } | { queued: false; result: O };

/**
 * Receives a multipart message with files and runs `command` on it once the files are stored.
 * With `clientId`, `mutationId` and `at` fields (sent before the files) it is a queued offline write:
 * it applies exactly once per client mutation, like /api/sync/push, and a refusal is recorded as that
 * mutation's outcome so the client's queue moves on. A refused or replayed message leaves no file behind.
 */
export async function receiveFileMessage<O>(
  app: FastifyInstance,
  request: FastifyRequest,
  uploads: UploadStore,
  policy: FilePolicy,
  command: Command<z.ZodType, O>,
  argsOf: (fields: Record<string, string>, files: StoredFile[]) => unknown,
): Promise<FileMessageResult<O>> {
  if (!request.isMultipart()) throw new DomainError('unsupported_media_type', 'Send the files as multipart/form-data.');
  const stored: StoredFile[] = [];
  const fields: Record<string, string> = {};
  const discard = () => uploads.remove(stored.map((file) => file.filename));
  let refusal: DomainError | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') stored.push(await uploads.save(part, policy));
      else fields[part.fieldname] = String(part.value);
    }
  } catch (error) {
    await discard();
    if ((error as { code?: string }).code === 'FST_FILES_LIMIT') {
      refusal = new DomainError('payload_too_large', `At most ${uploadLimits.files} files per message.`);
    } else if (error instanceof DomainError) refusal = error;
    else throw error;
  }
  const args = argsOf(fields, stored);

  if (fields.clientId !== undefined) {
    let sync: z.output<typeof uploadSyncFieldsSchema>;
    try {
      sync = parseInput(uploadSyncFieldsSchema, fields);
      await claimClient(app.db, sync.clientId, request.actor);
    } catch (error) {
      // Bad sync fields or another user's client: refused before any mutation, so no file stays.
      await discard();
      throw error;
    }
    const failed = refusal;
    const outcome = await applyClientMutation(
      app.db,
      app.flush,
      sync.clientId,
      { id: sync.mutationId, name: command.name, at: sync.at },
      async (tx, pending, madeAt) => {
        if (failed) throw failed;
        await runInTransaction(tx, request.actor, command, args, pending, madeAt, request.ip);
      },
    );
    // Only a first, applied run keeps its files.
    if (outcome === 'gap' || outcome.status !== 'applied') await discard();
    return { queued: true, outcome };
  }

  if (refusal) throw refusal;
  try {
    return { queued: false, result: await runCommand(app.db, app.flush, request.actor, command, args) };
  } catch (error) {
    await discard();
    throw error;
  }
}

/** An attachment's original name for the browser's save dialog, safe in a header. */
const contentDisposition = (name: string): string =>
  `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeRfc5987(name)}`;

/** RFC 5987 ext-value: encodeURIComponent leaves ' ( ) * as they are, which that grammar does not allow. */
const encodeRfc5987 = (value: string): string =>
  encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Route options of a file download: sent as stored, never compressed per request. Most files are compressed already
 * (images, video, archives, office documents), and a download shows its progress by its Content-Length.
 */
export const fileDownloadOptions = { compress: false } as const;

/**
 * Sends a stored attachment under its original name as a download with the type its bytes have (read at upload),
 * never sniffed, never rendered as a page of this origin.
 */
export function sendAttachment(
  reply: FastifyReply,
  uploads: UploadStore,
  filename: string,
  file: { originalName: string; mimetype: string; size: number },
): FastifyReply {
  const bytes = uploads.open(filename);
  // The row names a file the store no longer holds: not found, never an empty body of the promised length.
  if (!bytes) throw new DomainError('not_found', 'File not found.');
  return reply
    .header('Content-Type', servableType(file.mimetype))
    .header('Content-Length', file.size)
    .header('Content-Disposition', contentDisposition(file.originalName))
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', "default-src 'none'; sandbox")
    .header('Cache-Control', 'private, no-store')
    .send(bytes);
}
