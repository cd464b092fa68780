import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { accountTexts, limits } from '@office/sync-protocol';
import { fileStore, type FileStore } from '../../files/file-store';
import { DomainError } from '../errors';

/** The image formats a profile photo may be, by the bytes they start with. */
const imageSignatures: { mimetype: string; extension: string; matches(head: Buffer): boolean }[] = [
  {
    mimetype: 'image/png',
    extension: '.png',
    matches: (head) => head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  {
    mimetype: 'image/jpeg',
    extension: '.jpg',
    matches: (head) => head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])),
  },
  {
    mimetype: 'image/gif',
    extension: '.gif',
    matches: (head) => /^GIF8[79]a$/.test(head.subarray(0, 6).toString('latin1')),
  },
  {
    mimetype: 'image/webp',
    extension: '.webp',
    matches: (head) =>
      head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP',
  },
];

/** Avatar file names: a UUID and the extension of the detected format. */
export const avatarNamePattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(png|jpg|gif|webp)$/;

/** Where avatars are served from (public: an <img> sends no bearer token; the names are unguessable). */
export const avatarUrlPrefix = '/api/auth/avatars/';

export const mimetypeOfAvatar = (filename: string): string =>
  imageSignatures.find((signature) => filename.endsWith(signature.extension))?.mimetype ?? 'application/octet-stream';

/** Profile photos in the avatars file store, checked on declared type and leading bytes. */
export class AvatarStore {
  private readonly files: FileStore;

  constructor(dataDir: string) {
    this.files = fileStore(dataDir, 'avatars');
  }

  /** Stores an upload; refuses anything but PNG, JPEG, GIF or WebP (by content) and files over 5 MB. */
  async save(part: { mimetype: string; file: Readable & { truncated?: boolean } }): Promise<string> {
    if (!part.mimetype.startsWith('image/')) {
      part.file.resume();
      throw new DomainError('unsupported_media_type', accountTexts.invalidImage);
    }
    // Read whole (the multipart limit stops it at 5 MB), so nothing is stored before its format is known.
    let bytes: Buffer;
    try {
      bytes = Buffer.concat(await part.file.toArray());
    } catch (error) {
      if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
        throw new DomainError('payload_too_large', accountTexts.imageTooLarge);
      }
      throw error;
    }
    if (part.file.truncated) throw new DomainError('payload_too_large', accountTexts.imageTooLarge);
    const format = imageSignatures.find((signature) => signature.matches(bytes.subarray(0, 16)));
    // Security: the declared type must be what the bytes are, so a renamed page is never served as an image.
    if (!format || format.mimetype !== normalizeImageType(part.mimetype)) {
      throw new DomainError('unsupported_media_type', accountTexts.invalidImage);
    }
    const filename = `${randomUUID()}${format.extension}`;
    await this.files.put(filename, bytes);
    return filename;
  }

  /** Removes a replaced avatar, given its URL; URLs that are not ours are left alone. */
  async removeByUrl(url: string | null): Promise<void> {
    if (!url?.startsWith(avatarUrlPrefix)) return;
    const filename = basename(url.slice(avatarUrlPrefix.length).split('?')[0] ?? '');
    if (avatarNamePattern.test(filename)) await this.files.remove(filename);
  }

  async remove(filename: string): Promise<void> {
    await this.files.remove(filename);
  }

  /** The stored photo, or null when there is none by that name. */
  open(filename: string): Readable | null {
    return this.files.open(filename);
  }
}

/** Browsers declare JPEG as image/jpeg or image/pjpeg, and sometimes image/jpg. */
const normalizeImageType = (type: string): string =>
  ['image/jpg', 'image/pjpeg'].includes(type.toLowerCase()) ? 'image/jpeg' : type.toLowerCase();

/** The size limit of spec section 9, for the multipart reader. */
export const avatarLimits = { fileSize: limits.avatarMaxBytes, files: 1 } as const;
