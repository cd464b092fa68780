import { useCallback } from 'react';
import type { Attachment } from '@office/sync-protocol';
import { apiBasePath } from '../../api/http';
import { failureTexts } from '../../app/failure-messages';
import { useDialogs } from '../dialogs';

/** A temporary file link is released after 5 s (spec section 9). */
export const fileLinkReleaseMs = 5_000;

/**
 * Image types a browser shows safely in a tab of our origin. SVG is left out on purpose: a blob
 * URL runs with this origin, and an SVG can carry script, so SVG files are downloaded instead.
 */
const viewableImageTypes = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'image/x-icon',
  'image/vnd.microsoft.icon',
]);

type AttachmentFile = Pick<Attachment, 'url' | 'originalName' | 'kind'> & { mimetype?: string; mimeType?: string };

const mimeOf = (attachment: AttachmentFile): string => (attachment.mimetype || attachment.mimeType || '').toLowerCase();

/** Whether the attachment opens in a new tab (View) rather than downloading. */
export const isViewableImage = (attachment: AttachmentFile): boolean =>
  attachment.kind === 'image' && viewableImageTypes.has(mimeOf(attachment));

export async function fetchFile(attachment: AttachmentFile, token: string): Promise<Blob> {
  const response = await fetch(`${apiBasePath}${attachment.url}`, { headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`File request answered ${response.status}`);
  return response.blob();
}

/** A file that could not be opened or downloaded; its message is the spec's sentence for the person (section 8). */
export class AttachmentFailure extends Error {}

/** Opens an image in a new tab (spec section 7); an AttachmentFailure with the spec's text when it cannot. */
export async function viewAttachment(attachment: AttachmentFile, token: string | null): Promise<void> {
  if (!token) throw new AttachmentFailure(failureTexts.viewFileSignedOut);
  // The tab opens during the click, so popup blockers let it through; it gets the image when it arrives.
  const tab = window.open('', '_blank');
  try {
    const blob = await fetchFile(attachment, token);
    const url = URL.createObjectURL(new Blob([blob], { type: mimeOf(attachment) || blob.type }));
    if (tab) {
      tab.opener = null;
      tab.location.href = url;
    } else {
      window.open(url, '_blank', 'noopener');
    }
    window.setTimeout(() => URL.revokeObjectURL(url), fileLinkReleaseMs);
  } catch (error) {
    tab?.close();
    console.error('Viewing the file failed', error);
    throw new AttachmentFailure(failureTexts.viewFileFailed);
  }
}

/** Downloads an attachment under its original name (spec section 7); an AttachmentFailure when it cannot. */
export async function downloadAttachment(attachment: AttachmentFile, token: string | null): Promise<void> {
  if (!token) throw new AttachmentFailure(failureTexts.downloadFileSignedOut);
  try {
    const blob = await fetchFile(attachment, token);
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = attachment.originalName;
    link.rel = 'noopener';
    document.body.append(link);
    link.click();
    link.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), fileLinkReleaseMs);
  } catch (error) {
    console.error('Downloading the file failed', error);
    throw new AttachmentFailure(failureTexts.downloadFileFailed);
  }
}

/**
 * View and Download of a message's files: what cannot be done is said in the app's alert dialog (spec section 8's
 * alerts). Each starts during the click, so the tab View opens is not taken for a popup.
 */
export function useAttachmentActions(token: string | null): {
  view: (attachment: AttachmentFile) => void;
  download: (attachment: AttachmentFile) => void;
} {
  const { alert } = useDialogs();
  const run = useCallback(
    (action: Promise<void>, title: string, failed: string) =>
      void action.catch((error: unknown) =>
        alert({ title, message: error instanceof AttachmentFailure ? error.message : failed }),
      ),
    [alert],
  );
  const view = useCallback(
    (attachment: AttachmentFile) =>
      run(viewAttachment(attachment, token), 'Could not open the file', failureTexts.viewFileFailed),
    [run, token],
  );
  const download = useCallback(
    (attachment: AttachmentFile) =>
      run(downloadAttachment(attachment, token), 'Could not download the file', failureTexts.downloadFileFailed),
    [run, token],
  );
  return { view, download };
}

/** Thumbnails already loaded this session, newest last; the oldest is released past the bound. */
const thumbnailUrls = new Map<string, string>();
const thumbnailsKept = 200;

/**
 * An object URL of the image, fetched with the token once per session and shared by every thumbnail
 * and the large view of it (the API is never cached by the service worker).
 */
export async function imageUrl(attachment: AttachmentFile, token: string): Promise<string> {
  const known = thumbnailUrls.get(attachment.url);
  if (known !== undefined) return known;
  const blob = await fetchFile(attachment, token);
  const url = URL.createObjectURL(new Blob([blob], { type: mimeOf(attachment) || blob.type }));
  thumbnailUrls.set(attachment.url, url);
  if (thumbnailUrls.size > thumbnailsKept) {
    const [oldest] = thumbnailUrls;
    if (oldest) {
      thumbnailUrls.delete(oldest[0]);
      URL.revokeObjectURL(oldest[1]);
    }
  }
  return url;
}
