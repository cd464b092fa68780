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

/** Each accepted document extension: its kind, the type it is served as, and the types browsers declare for it. */
const documentTypes: Record<string, { kind: AttachmentKind; mimetype: string; declared: string[] }> = {
  '.pdf': { kind: 'pdf', mimetype: 'application/pdf', declared: ['application/pdf', 'application/x-pdf'] },
  '.doc': { kind: 'document', mimetype: 'application/msword', declared: ['application/msword'] },
  '.docx': {
    kind: 'document',
    mimetype: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    declared: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  },
  '.txt': { kind: 'document', mimetype: 'text/plain', declared: ['text/plain'] },
  '.zip': {
    kind: 'archive',
    mimetype: 'application/zip',
    declared: ['application/zip', 'application/x-zip-compressed'],
  },
  '.rar': {
    kind: 'archive',
    mimetype: 'application/vnd.rar',
    declared: ['application/vnd.rar', 'application/x-rar-compressed', 'application/x-rar'],
  },
};

/** The extensions media of each kind may be named with: a page or a program renamed as image/png is not media. */
const mediaExtensions: Record<'image' | 'video' | 'audio', ReadonlySet<string>> = {
  image: new Set('.jpg .jpeg .jfif .png .gif .webp .bmp .avif .heic .heif .tif .tiff .ico'.split(' ')),
  video: new Set('.mp4 .m4v .webm .mov .ogv .ogg .avi .mkv .mpeg .mpg .3gp .3g2 .wmv'.split(' ')),
  audio: new Set('.mp3 .wav .ogg .oga .opus .m4a .aac .flac .weba .webm .amr .3gp .mid .midi .wma'.split(' ')),
};

/**
 * What a file is, from its extension and content type together, and the type it will be served as;
 * null when the chat does not accept it.
 */
export function classifyFile(
  originalName: string,
  mimetype: string,
): { kind: AttachmentKind; mimetype: string } | null {
  const extension = extname(originalName).toLowerCase();
  const document = documentTypes[extension];
  if (document) {
    // Browsers send octet-stream for types they do not know; anything else must match the extension.
    const declaredOk = document.declared.includes(mimetype) || mimetype === 'application/octet-stream';
    return declaredOk ? { kind: document.kind, mimetype: document.mimetype } : null;
  }
  for (const kind of ['image', 'video', 'audio'] as const) {
    // Security: media must also be named like media, so a renamed page never arrives as image/png.
    if (mimetype.startsWith(`${kind}/`) && mediaExtensions[kind].has(extension) && !/svg|html|xml/.test(mimetype)) {
      return { kind, mimetype };
    }
  }
  return null;
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
  accepts: () => true,
  described: 'images, video, audio, PDF, Word, text, ZIP or RAR files',
};
const directExtensions: ReadonlySet<string> = new Set(directFileExtensions);
export const directFilePolicy: FilePolicy = {
  accepts: (extension) => directExtensions.has(extension),
  described: 'PDF, Word, text, JPG, PNG, GIF, MP4, MP3, ZIP or RAR files',
};

/** Stored names are random: a UUID and the original extension, never a path from the client. */
export const storedNamePattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.[a-z0-9]{1,5})?$/;

/** Attachments of chat and direct messages, in the uploads file store. */
export class UploadStore {
  private readonly files: FileStore;

  constructor(dataDir: string) {
    this.files = fileStore(dataDir, 'uploads');
  }

  /** Streams one part to disk (never buffered whole); refuses wrong types and files over the limit. */
  async save(
    part: { filename: string; mimetype: string; file: Readable & { truncated?: boolean } },
    policy: FilePolicy = chatFilePolicy,
  ): Promise<StoredFile> {
    // Security: the name is shown to others, so it loses the controls that could make it read as another.
    const name = stripInvisible(part.filename);
    const extension = extname(name).toLowerCase();
    const type = policy.accepts(extension) ? classifyFile(name, part.mimetype) : null;
    if (!type) {
      part.file.resume();
      throw new DomainError(
        'unsupported_media_type',
        `"${name}" is not a supported file type. Send ${policy.described}.`,
      );
    }
    const filename = `${randomUUID()}${extension}`;
    let size: number;
    try {
      size = await this.files.put(filename, part.file);
    } catch (error) {
      if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw this.tooLarge(name);
      throw error;
    }
    if (part.file.truncated) {
      await this.remove([filename]);
      throw this.tooLarge(name);
    }
    return { filename, originalName: name.slice(0, 255), mimetype: type.mimetype, size, kind: type.kind };
  }

  /** Stores bytes the server itself has (the demo seed), under a random name like any upload. */
  async saveBytes(originalName: string, mimetype: string, bytes: Uint8Array): Promise<StoredFile> {
    const type = classifyFile(originalName, mimetype);
    if (!type) throw new Error(`${originalName} is not a chat file type`);
    const filename = `${randomUUID()}${extname(originalName).toLowerCase()}`;
    await this.files.put(filename, bytes);
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
