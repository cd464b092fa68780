import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import type { AttachmentKind } from '@office/sync-protocol';

/** What a stored file is: its kind (the icon and whether it may show as media) and the type it is served as. */
export interface ContentType {
  kind: AttachmentKind;
  mimetype: string;
}

/**
 * The formats whose bytes can pass for each other under one name (file-type's extensions): ISO media files
 * differ only by their brand, Ogg and Matroska files by their codecs.
 */
const isoMedia = ['mp4', 'm4v', 'm4a', 'm4b', 'm4p', 'mov', '3gp', '3g2', 'f4v', 'f4a', 'f4b', 'f4p'];
const oggMedia = ['ogg', 'oga', 'ogv', 'opus', 'spx', 'ogm', 'ogx'];
const matroska = ['webm', 'mkv'];
/** OOXML and other formats inside a ZIP, which file-type tells apart by the entries it finds. */
const zipFormats = ['zip', 'docx', 'xlsx', 'pptx', 'docm', 'dotx', 'dotm', 'odt', 'ods', 'odp', 'epub', 'jar', 'apk'];

/**
 * Each file-name extension the chat takes, the kind its name announces, and what its bytes may be (file-type's
 * extensions). A text file is the one whose bytes carry no signature: see `textType`.
 */
const byExtension: Record<string, { kind: AttachmentKind; bytes: readonly string[]; servedAs?: string }> = {
  '.jpg': { kind: 'image', bytes: ['jpg'] },
  '.jpeg': { kind: 'image', bytes: ['jpg'] },
  '.jfif': { kind: 'image', bytes: ['jpg'] },
  '.png': { kind: 'image', bytes: ['png', 'apng'] },
  '.gif': { kind: 'image', bytes: ['gif'] },
  '.webp': { kind: 'image', bytes: ['webp'] },
  '.bmp': { kind: 'image', bytes: ['bmp'] },
  '.avif': { kind: 'image', bytes: ['avif'] },
  '.heic': { kind: 'image', bytes: ['heic'] },
  '.heif': { kind: 'image', bytes: ['heic'] },
  '.tif': { kind: 'image', bytes: ['tif'] },
  '.tiff': { kind: 'image', bytes: ['tif'] },
  '.ico': { kind: 'image', bytes: ['ico'] },
  '.mp4': { kind: 'video', bytes: isoMedia },
  '.m4v': { kind: 'video', bytes: isoMedia },
  '.mov': { kind: 'video', bytes: isoMedia },
  '.3gp': { kind: 'video', bytes: isoMedia },
  '.3g2': { kind: 'video', bytes: isoMedia },
  '.webm': { kind: 'video', bytes: matroska },
  '.mkv': { kind: 'video', bytes: matroska },
  '.ogv': { kind: 'video', bytes: oggMedia },
  '.ogg': { kind: 'audio', bytes: oggMedia },
  '.avi': { kind: 'video', bytes: ['avi'] },
  '.mpeg': { kind: 'video', bytes: ['mpg', 'mp2', 'mp1'] },
  '.mpg': { kind: 'video', bytes: ['mpg', 'mp2', 'mp1'] },
  '.wmv': { kind: 'video', bytes: ['asf'] },
  '.mp3': { kind: 'audio', bytes: ['mp3', 'mp2', 'mp1'] },
  '.wav': { kind: 'audio', bytes: ['wav'] },
  '.oga': { kind: 'audio', bytes: oggMedia },
  '.opus': { kind: 'audio', bytes: oggMedia },
  '.m4a': { kind: 'audio', bytes: isoMedia },
  '.aac': { kind: 'audio', bytes: ['aac'] },
  '.flac': { kind: 'audio', bytes: ['flac'] },
  '.weba': { kind: 'audio', bytes: matroska },
  '.amr': { kind: 'audio', bytes: ['amr'] },
  '.mid': { kind: 'audio', bytes: ['mid'] },
  '.midi': { kind: 'audio', bytes: ['mid'] },
  '.wma': { kind: 'audio', bytes: ['asf'] },
  '.pdf': { kind: 'pdf', bytes: ['pdf'] },
  // Word 97-2003 files are OLE compound files, which file-type does not look inside: the name tells which program.
  '.doc': { kind: 'document', bytes: ['cfb'], servedAs: 'application/msword' },
  '.docx': { kind: 'document', bytes: zipFormats },
  '.zip': { kind: 'archive', bytes: zipFormats },
  '.rar': { kind: 'archive', bytes: ['rar'] },
};

const textExtension = '.txt';

/** Whether the chat takes files named with this (lower-case) extension at all. */
export const isKnownExtension = (extension: string): boolean => extension === textExtension || extension in byExtension;

/**
 * How many leading bytes decide a type: file-type needs 4100 for most formats, and reads on through a ZIP's first
 * entries to tell a Word file from an archive.
 */
const sampleBytes = 64 * 1024;

/** The bytes of a file on their way to storage, and what they turned out to be once all went through. */
export interface ContentInspection {
  /** The same bytes, to store. */
  body: Readable;
  /**
   * Once `body` has ended: the type of the file, named with `extension` (one `isKnownExtension` takes), from its
   * bytes alone. What they are must be what the name says (HTML named .png is no image), and is what the file is
   * served as; null when they disagree. Text says nothing of its format: a .txt file is text when its bytes are
   * valid UTF-8 without NUL, and otherwise bytes to download.
   */
  type(extension: string): Promise<ContentType | null>;
}

/** Watches `source` as it streams to storage: keeps its first bytes and checks whether it is text. */
export function inspectContent(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): ContentInspection {
  const head: Uint8Array[] = [];
  let headSize = 0;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let text = true;
  const watch = (chunk: Uint8Array): void => {
    if (headSize < sampleBytes) {
      head.push(chunk.subarray(0, sampleBytes - headSize));
      headSize += Math.min(chunk.byteLength, sampleBytes - headSize);
    }
    if (!text) return;
    try {
      decoder.decode(chunk, { stream: true });
      if (chunk.includes(0)) text = false;
    } catch {
      text = false;
    }
  };
  const body = Readable.from(
    (async function* () {
      for await (const chunk of source) {
        watch(chunk);
        yield chunk;
      }
    })(),
  );
  return {
    body,
    async type(extension) {
      if (extension === textExtension) {
        try {
          // An unfinished character at the very end is not text either.
          if (text) decoder.decode();
        } catch {
          text = false;
        }
        return { kind: 'document', mimetype: text ? 'text/plain; charset=utf-8' : 'application/octet-stream' };
      }
      const expected = byExtension[extension];
      if (!expected) return null;
      const detected = await fileTypeFromBuffer(Buffer.concat(head));
      if (!detected || !expected.bytes.includes(detected.ext)) return null;
      // Media show as what they are (an .mp4 holding only sound plays as audio); other files keep their name's kind.
      const media = /^(image|video|audio)\//.exec(detected.mime)?.[1] as 'image' | 'video' | 'audio' | undefined;
      return { kind: media ?? expected.kind, mimetype: expected.servedAs ?? detected.mime };
    },
  };
}

/** A stored type as it may be sent in a header: old rows kept what a client declared ("image/png,text/javascript"). */
export const servableType = (mimetype: string): string =>
  /^[a-z]+\/[a-z0-9.+-]+(; ?[a-z]+=[a-z0-9.+-]+)?$/i.test(mimetype) ? mimetype : 'application/octet-stream';
