import { randomUUID } from 'node:crypto';
import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import {
  directFileExtensions,
  formatFileSize,
  stripInvisible,
  uploadLimits,
  type Attachment,
  type AttachmentKind,
} from '@office/sync-protocol';
import { inspectContent, isKnownExtension } from '../../files/content-type';
import { fileStore, type FileStore } from '../../files/file-store';
import { DomainError } from '../errors';

/** A file the upload route has already stored under DATA_DIR; never taken from a client's payload. */
export interface StoredFile {
  filename: string;
  originalName: string;
  mimetype: string;
  size: number;
  kind: AttachmentKind;
}

/** A stored file as messages carry it; `url` is where it downloads, under /api. */
export const toAttachment = (file: StoredFile, url: string): Attachment => ({
  filename: file.filename,
  originalName: file.originalName,
  mimetype: file.mimetype,
  mimeType: file.mimetype,
  url,
  size: file.size,
  kind: file.kind,
  formattedSize: formatFileSize(file.size),
});

/** Which of the classified files a place accepts (by lower-case extension), and how its refusal names them. */
export interface FilePolicy {
  accepts(extension: string): boolean;
  described: string;
}
export const chatFilePolicy: FilePolicy = {
  accepts: isKnownExtension,
  described: 'images, video, audio, PDF, Word, text, ZIP or RAR files',
};
const directExtensions: ReadonlySet<string> = new Set(directFileExtensions);
export const directFilePolicy: FilePolicy = {
  accepts: (extension) => directExtensions.has(extension) && isKnownExtension(extension),
  described: 'PDF, Word, text, JPG, PNG, GIF, MP4, MP3, ZIP or RAR files',
};

/** The refusal of a file whose bytes are not what its name says: HTML named .png, a program named .pdf. */
const notWhatItsNameSays = (name: string, extension: string): DomainError =>
  new DomainError(
    'unsupported_media_type',
    `"${name}" is not a real ${extension.slice(1).toUpperCase()} file: its contents do not match its name.`,
  );

/** Stored names are random: a UUID and the original extension, never a path from the client. */
export const storedNamePattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.[a-z0-9]{1,5})?$/;

/** Attachments of chat and direct messages, in the uploads file store. */
export class UploadStore {
  private readonly files: FileStore;

  constructor(dataDir: string) {
    this.files = fileStore(dataDir, 'uploads');
  }

  /**
   * Streams one part to disk (never buffered whole) and types it by its bytes, never by what the client declared:
   * refuses names the place does not take, bytes that are not what the name says, and files over the limit.
   */
  async save(
    part: { filename: string; file: Readable & { truncated?: boolean } },
    policy: FilePolicy = chatFilePolicy,
  ): Promise<StoredFile> {
    // Security: the name is shown to others, so it loses the controls that could make it read as another.
    const name = stripInvisible(part.filename);
    const extension = extname(name).toLowerCase();
    if (!policy.accepts(extension)) {
      part.file.resume();
      throw new DomainError(
        'unsupported_media_type',
        `"${name}" is not a supported file type. Send ${policy.described}.`,
      );
    }
    const filename = `${randomUUID()}${extension}`;
    const content = inspectContent(part.file);
    let size: number;
    try {
      size = await this.files.put(filename, content.body);
    } catch (error) {
      if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw this.tooLarge(name);
      throw error;
    }
    if (part.file.truncated) {
      await this.remove([filename]);
      throw this.tooLarge(name);
    }
    const type = await content.type(extension);
    if (!type) {
      await this.remove([filename]);
      throw notWhatItsNameSays(name, extension);
    }
    return { filename, originalName: name.slice(0, 255), mimetype: type.mimetype, size, kind: type.kind };
  }

  /** Stores bytes the server itself has (the demo seed), typed by its bytes like any upload. */
  async saveBytes(originalName: string, bytes: Uint8Array): Promise<StoredFile> {
    const extension = extname(originalName).toLowerCase();
    const content = inspectContent([bytes]);
    const filename = `${randomUUID()}${extension}`;
    await this.files.put(filename, content.body);
    const type = await content.type(extension);
    if (!type) {
      await this.remove([filename]);
      throw new Error(`${originalName} is not what its name says`);
    }
    return { filename, originalName, mimetype: type.mimetype, size: bytes.byteLength, kind: type.kind };
  }

  private tooLarge(name: string): DomainError {
    return new DomainError('payload_too_large', `"${name}" is larger than ${uploadLimits.fileBytes / 1024 / 1024} MB.`);
  }

  async remove(filenames: string[]): Promise<void> {
    await Promise.all(filenames.map((name) => this.files.remove(name)));
  }

  /** The stored file, or null when it is gone. */
  open(filename: string): Readable | null {
    return this.files.open(filename);
  }
}
