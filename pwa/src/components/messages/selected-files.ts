import { directFileExtensions, uploadLimits, type QueuedFile } from '@office/sync-protocol';

const maxMegabytes = Math.round(uploadLimits.fileBytes / 1024 / 1024);

/** Enough of a File to choose it. */
export interface PickedFile {
  name: string;
  size: number;
  lastModified: number;
}

/** The same file picked twice has the same key. */
export const fileKey = (file: PickedFile): string => `${file.name}:${file.size}:${file.lastModified}`;

/**
 * Adds picked files to those already chosen: no duplicates, none too large, none of a type the screen
 * does not take (`accepts`, when given), at most the per-message count.
 */
export function addFiles<F extends PickedFile>(
  current: readonly F[],
  picked: readonly F[],
  accepts?: (file: F) => boolean,
): { files: F[]; problem: string | null } {
  const files = [...current];
  const seen = new Set(files.map(fileKey));
  let problem: string | null = null;
  for (const file of picked) {
    if (seen.has(fileKey(file))) continue;
    if (accepts && !accepts(file)) {
      problem = `"${file.name}" is not a supported file type and was not added.`;
      continue;
    }
    if (file.size > uploadLimits.fileBytes) {
      problem = `"${file.name}" is larger than ${maxMegabytes} MB and was not added.`;
      continue;
    }
    if (files.length >= uploadLimits.files) {
      problem = `You can attach up to ${uploadLimits.files} files to one message.`;
      break;
    }
    seen.add(fileKey(file));
    files.push(file);
  }
  return { files, problem };
}

/** Chosen files as a queued write carries them: kept as Blobs in IndexedDB until the upload. */
export const toQueuedFiles = (files: readonly File[]): QueuedFile[] =>
  files.map((file) => ({ name: file.name, type: file.type, size: file.size, blob: file }));

/** Whether a file's name ends in one of the extensions direct messages take (spec section 5). */
export const isDirectFile = (file: { name: string }): boolean => {
  const name = file.name.toLowerCase();
  return directFileExtensions.some((extension) => name.endsWith(extension));
};
