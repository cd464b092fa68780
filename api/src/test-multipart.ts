import { randomBytes } from 'node:crypto';
import type { Session } from './test-api-client';
import { bearer } from './test-support';

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

/** `size` bytes that start like a PNG. */
export const pngBytes = (size: number) => fileBytes(size, '\x89PNG\r\n\x1a\n');

/** `size` bytes that start like a PDF. */
export const pdfBytes = (size: number) => fileBytes(size, '%PDF-1.7\n');
