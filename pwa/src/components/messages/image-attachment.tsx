import { useCallback, useEffect, useState } from 'react';
import type { Attachment } from '@office/sync-protocol';
import { Download, ExternalLink, ImageOff, WifiOff } from 'lucide-react';
import { Button } from '../button';
import { Modal } from '../modal';
import { useWhenVisible } from '../use-when-visible';
import { useOnline } from '../../data/hooks';
import { imageUrl, useAttachmentActions } from './attachment-files';
import styles from './attachments.module.css';

/** The image as far as it has loaded: its object URL, or why there is none yet. */
type LazyImage = { url: string } | { url: null; failedOnline: boolean };

/**
 * The image's object URL once it has scrolled into view and loaded. Offline, an image this session has not loaded
 * cannot load (the API is never cached): it is tried again when the connection is back.
 */
function useLazyImage(
  attachment: Attachment,
  token: string | null,
  online: boolean,
): [LazyImage, (element: Element | null) => void] {
  const [image, setImage] = useState<LazyImage>({ url: null, failedOnline: false });
  const [wanted, setWanted] = useState(false);
  const handleVisible = useCallback(() => setWanted(true), []);
  const ref = useWhenVisible(handleVisible);
  const loaded = image.url !== null;
  useEffect(() => {
    if (!wanted || token === null || loaded) return undefined;
    let active = true;
    imageUrl(attachment, token)
      .then((url) => {
        if (active) setImage({ url });
      })
      // The file chip below still names the file and offers it; the thumbnail says why it is empty.
      .catch((error: unknown) => {
        console.warn('Could not load the image thumbnail', error);
        if (active) setImage({ url: null, failedOnline: navigator.onLine });
      });
    return () => {
      active = false;
    };
  }, [attachment, token, wanted, loaded, online]);
  return [image, ref];
}

/** An image sent in a message: a thumbnail that loads when seen and opens the image large on click. */
export function ImageThumbnail({ attachment, token }: { attachment: Attachment; token: string | null }) {
  const online = useOnline();
  const [image, ref] = useLazyImage(attachment, token, online);
  const [open, setOpen] = useState(false);
  const { view, download } = useAttachmentActions(token);
  const url = image.url;
  const missing =
    url !== null
      ? null
      : !online
        ? 'Image not available offline'
        : image.failedOnline
          ? 'Image could not be loaded'
          : null;
  if (missing !== null) {
    return (
      <div
        ref={ref}
        className={`${styles.thumbnail} ${styles.thumbnailMissing}`}
        role="img"
        aria-label={`${attachment.originalName}: ${missing}`}
      >
        {online ? <ImageOff size={20} aria-hidden="true" /> : <WifiOff size={20} aria-hidden="true" />}
        <span>{missing}</span>
        {!online && <span className={styles.thumbnailHint}>It loads when you are back online.</span>}
      </div>
    );
  }
  return (
    <>
      <button
        ref={ref}
        type="button"
        className={styles.thumbnail}
        aria-label={`Open ${attachment.originalName}`}
        onClick={() => setOpen(true)}
        disabled={url === null}
      >
        {url !== null ? <img src={url} alt={attachment.originalName} className={styles.thumbnailImage} /> : null}
      </button>
      {open && url !== null ? (
        <Modal
          title={attachment.originalName}
          size="large"
          onClose={() => setOpen(false)}
          footer={
            <>
              <Button variant="secondary" size="small" onClick={() => view(attachment)}>
                <ExternalLink size={16} aria-hidden="true" />
                Open in new tab
              </Button>
              <Button size="small" onClick={() => download(attachment)}>
                <Download size={16} aria-hidden="true" />
                Download
              </Button>
            </>
          }
        >
          <img src={url} alt={attachment.originalName} className={styles.viewerImage} />
        </Modal>
      ) : null}
    </>
  );
}
