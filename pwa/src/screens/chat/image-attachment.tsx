import { useCallback, useEffect, useState } from 'react';
import type { Attachment } from '@office/sync-protocol';
import { Download, ExternalLink } from 'lucide-react';
import { Button } from '../../components/button';
import { Modal } from '../../components/modal';
import { useWhenVisible } from '../../components/use-when-visible';
import { imageUrl, useAttachmentActions } from './attachment-files';
import styles from './chat.module.css';

/** The image's object URL once it has scrolled into view and loaded; null until then or when it cannot load. */
function useLazyImage(
  attachment: Attachment,
  token: string | null,
): [string | null, (element: Element | null) => void] {
  const [url, setUrl] = useState<string | null>(null);
  const [wanted, setWanted] = useState(false);
  const handleVisible = useCallback(() => setWanted(true), []);
  const ref = useWhenVisible(handleVisible);
  useEffect(() => {
    if (!wanted || token === null) return undefined;
    let active = true;
    imageUrl(attachment, token)
      .then((loaded) => {
        if (active) setUrl(loaded);
      })
      // Offline or refused: the file chip below still names the file and offers it.
      .catch((error: unknown) => console.warn('Could not load the image thumbnail', error));
    return () => {
      active = false;
    };
  }, [attachment, token, wanted]);
  return [url, ref];
}

/** An image sent in a message: a thumbnail that loads when seen and opens the image large on click. */
export function ImageThumbnail({ attachment, token }: { attachment: Attachment; token: string | null }) {
  const [url, ref] = useLazyImage(attachment, token);
  const [open, setOpen] = useState(false);
  const { view, download } = useAttachmentActions(token);
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
