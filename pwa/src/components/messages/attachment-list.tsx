import type { Attachment, AttachmentKind } from '@office/sync-protocol';
import {
  Download,
  Eye,
  File,
  FileArchive,
  FileAudio,
  FileImage,
  FileText,
  FileVideo,
  type LucideIcon,
} from 'lucide-react';
import { isViewableImage, useAttachmentActions } from './attachment-files';
import { ImageThumbnail } from './image-attachment';
import styles from './attachments.module.css';

const kindIcons: Record<AttachmentKind, LucideIcon> = {
  image: FileImage,
  video: FileVideo,
  audio: FileAudio,
  pdf: FileText,
  document: FileText,
  archive: FileArchive,
  other: File,
};

/**
 * The files of one message: images as thumbnails that open large, then a chip per file with an icon by
 * kind, the name and size, and labelled View (images) and Download buttons.
 */
export function AttachmentList({ attachments, token }: { attachments: readonly Attachment[]; token: string | null }) {
  const { view, download } = useAttachmentActions(token);
  return (
    <ul className={styles.attachments} aria-label="Attachments">
      {attachments.map((attachment) => {
        const Icon = kindIcons[attachment.kind] ?? File;
        const viewable = isViewableImage(attachment);
        return (
          <li
            key={attachment.filename}
            className={viewable && attachment.url !== '' ? styles.imageAttachment : undefined}
          >
            {viewable && attachment.url !== '' && <ImageThumbnail attachment={attachment} token={token} />}
            <div className={styles.attachment}>
              <span
                className={`${styles.attachmentIcon} ${styles[`kind-${attachment.kind}`] ?? ''}`}
                aria-hidden="true"
              >
                <Icon size={20} />
              </span>
              <span className={styles.attachmentText}>
                <span className={styles.attachmentName} title={attachment.originalName}>
                  {attachment.originalName}
                </span>
                <span className={styles.attachmentSize}>{attachment.formattedSize}</span>
              </span>
              {attachment.url === '' ? (
                // Still waiting on this device to upload: nothing on the server to open yet.
                <span className={styles.attachmentSize}>Waiting to upload</span>
              ) : (
                <span className={styles.attachmentActions}>
                  {viewable && (
                    <button
                      type="button"
                      className={styles.attachmentAction}
                      aria-label={`View ${attachment.originalName}`}
                      onClick={() => view(attachment)}
                    >
                      <Eye size={16} aria-hidden="true" />
                      <span className={styles.attachmentActionLabel}>View</span>
                    </button>
                  )}
                  <button
                    type="button"
                    className={styles.attachmentAction}
                    aria-label={`Download ${attachment.originalName}`}
                    onClick={() => download(attachment)}
                  >
                    <Download size={16} aria-hidden="true" />
                    <span className={styles.attachmentActionLabel}>Download</span>
                  </button>
                </span>
              )}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
