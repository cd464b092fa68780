import { randomBytes } from 'node:crypto';
import type { Session } from './api-client';
import { bearer } from './support';

/** One file of a multipart body: its filename, its Content-Type and its bytes, under `field` when given. */
export interface FilePart {
  field?: string;
  name: string;
  type: string;
  content: Uint8Array | Blob;
}

/** The FormData a browser sends: the text fields first, then each file under its own field or `fileField`. */
export function multipartForm(parts: FilePart[], fields: Record<string, string> = {}, fileField = 'files'): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  // A Blob's own type is the part's Content-Type; the third argument is its filename.
  for (const part of parts)
    form.append(part.field ?? fileField, new Blob([part.content], { type: part.type }), part.name);
  return form;
}

/** Real multipart over HTTP, as a session or without one: the status, headers and JSON body of the answer. */
export async function postMultipart<T>(
  url: string,
  session: Session | null,
  form: FormData,
): Promise<{ status: number; headers: Headers; body: T }> {
  const res = await fetch(url, { method: 'POST', body: form, headers: session ? bearer(session.token) : {} });
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

/** `size` bytes that start like the named format (its first bytes in `head`), then random. */
export const fileBytes = (size: number, head = ''): Uint8Array => {
  const out = randomBytes(size);
  out.set(Buffer.from(head, 'latin1').subarray(0, size));
  return new Uint8Array(out);
};

/**
 * `size` bytes that start like a PNG: the signature, an IHDR chunk of a 1x1 image and the header of its image data
 * (what a reader of the type looks at), then random.
 */
export const pngBytes = (size: number) =>
  fileBytes(
    size,
    '\x89PNG\r\n\x1a\n' + '\0\0\0\x0dIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0\x90\x77\x53\xde' + '\0\0\0\x0cIDAT',
  );

/** `size` bytes that start like a PDF. */
export const pdfBytes = (size: number) => fileBytes(size, '%PDF-1.7\n');

/** The leading bytes by which a reader of file types knows each format (latin1), before random ones. */
const formatHeads: Record<string, string> = {
  '.jpg': '\xff\xd8\xff\xe0',
  '.jpeg': '\xff\xd8\xff\xe0',
  '.gif': 'GIF89a',
  '.webp': 'RIFF\x24\0\0\0WEBPVP8 ',
  '.mp4': '\0\0\0\x18ftypisom\0\0\x02\0isomiso2',
  // An EBML header whose document type is webm.
  '.webm':
    '\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x84webm\x42\x87\x81\x02\x42\x85\x81\x02',
  // An ID3 tag longer than the file: what follows it is never read.
  '.mp3': 'ID3\x04\0\0\x7f\x7f\x7f\x7f',
  '.wav': 'RIFF\x24\0\0\0WAVEfmt ',
  '.pdf': '%PDF-1.7\n',
  // An OLE compound file, as Word 97-2003 writes.
  '.doc': '\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1',
  '.rar': 'Rar!\x1a\x07\x01\0',
};

/** Whole small files of formats a reader recognises only by their structure (made with Python's zipfile). */
const wholeFiles: Record<string, string> = {
  '.zip':
    'UEsDBBQAAAAAACtofF2GphA2BQAAAAUAAAAJAAAAbm90ZXMudHh0aGVsbG9QSwECFAMUAAAAAAAraHxdhqYQNgUAAAAFAAAACQAAAAAAAAAAAAAAgAEAAAAAbm90ZXMudHh0UEsFBgAAAAABAAEANwAAACwAAAAAAA==',
  '.docx':
    'UEsDBBQAAAAAACtofF3GEnoH8QAAAPEAAAATAAAAW0NvbnRlbnRfVHlwZXNdLnhtbDw/eG1sIHZlcnNpb249IjEuMCI/PjxUeXBlcyB4bWxucz0iaHR0cDovL3NjaGVtYXMub3BlbnhtbGZvcm1hdHMub3JnL3BhY2thZ2UvMjAwNi9jb250ZW50LXR5cGVzIj48T3ZlcnJpZGUgUGFydE5hbWU9Ii93b3JkL2RvY3VtZW50LnhtbCIgQ29udGVudFR5cGU9ImFwcGxpY2F0aW9uL3ZuZC5vcGVueG1sZm9ybWF0cy1vZmZpY2Vkb2N1bWVudC53b3JkcHJvY2Vzc2luZ21sLmRvY3VtZW50Lm1haW4reG1sIi8+PC9UeXBlcz5QSwMEFAAAAAAAK2h8Xd1ahg0NAAAADQAAABEAAAB3b3JkL2RvY3VtZW50LnhtbDx3OmRvY3VtZW50Lz5QSwECFAMUAAAAAAAraHxdxhJ6B/EAAADxAAAAEwAAAAAAAAAAAAAAgAEAAAAAW0NvbnRlbnRfVHlwZXNdLnhtbFBLAQIUAxQAAAAAACtofF3dWoYNDQAAAA0AAAARAAAAAAAAAAAAAACAASIBAAB3b3JkL2RvY3VtZW50LnhtbFBLBQYAAAAAAgACAIAAAABeAQAAAAA=',
};

/**
 * Bytes that are what the name's extension says, as the server reads file types: a format's leading bytes and
 * `size` in all, a whole small ZIP or Word file, or `size` bytes of UTF-8 text for .txt.
 */
export function sampleFile(name: string, size = 64): Uint8Array {
  const extension = name.slice(name.lastIndexOf('.')).toLowerCase();
  const whole = wholeFiles[extension];
  if (whole) return new Uint8Array(Buffer.from(whole, 'base64'));
  if (extension === '.txt') return new Uint8Array(Buffer.from('Plain words. '.repeat(size).slice(0, size)));
  if (extension === '.png') return pngBytes(size);
  const head = formatHeads[extension];
  if (head === undefined) throw new Error(`no sample of ${extension} files`);
  return fileBytes(size, head);
}
