import { uploadLimits } from '@office/sync-protocol';

const maxMegabytes = Math.round(uploadLimits.fileBytes / 1024 / 1024);

/** Enough of a File to choose it. */
export interface PickedFile {
  name: string;
  size: number;
  lastModified: number;
}

/** The same file picked twice has the same key. */
export const fileKey = (file: PickedFile): string => `${file.name}:${file.size}:${file.lastModified}`;

/** Adds picked files to those already chosen: no duplicates, none too large, at most the per-message count. */
export function addFiles<F extends PickedFile>(
  current: readonly F[],
  picked: readonly F[],
): { files: F[]; problem: string | null } {
  const files = [...current];
  const seen = new Set(files.map(fileKey));
  let problem: string | null = null;
  for (const file of picked) {
    if (seen.has(fileKey(file))) continue;
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
