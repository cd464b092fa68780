import { useEffect, useRef, useState, type ChangeEvent } from 'react';
import { Camera } from 'lucide-react';
import { accountTexts, type User } from '@office/sync-protocol';
import { uploadAvatarRequest } from '../../api/auth-api';
import { dispatchAvatarUpdated } from '../../app/auth/avatar-events';
import { failureTexts } from '../../app/failure-messages';
import { useAuth } from '../../app/auth/use-auth';
import { Button } from '../../components/button';
import type { Flash } from '../../components/use-flash';
import { UserAvatar } from '../../components/user-avatar';
import type { LocalUser } from '../../data/db';
import { useOnline } from '../../data/hooks';
import { useWorkspace } from '../../sync/sync-context';
import { checkPhotoFile, photoFailureMessage, previewClearMs, profileTexts } from './profile-forms';
import styles from './profile-settings.module.css';

const avatarSize = 112;

interface ProfilePhotoProps {
  user: LocalUser | User;
  onFlash: (flash: Flash) => void;
}

/** The chosen photo, shown at once; `uploaded` starts the timer that hands back to the stored avatar. */
interface Preview {
  url: string;
  uploaded: boolean;
}

/** The current photo and its upload (online only: the server checks and stores it, nothing is queued). */
export function ProfilePhoto({ user, onFlash }: ProfilePhotoProps) {
  const { db } = useWorkspace();
  const { setUser, avatarVersion } = useAuth();
  const online = useOnline();
  const inputRef = useRef<HTMLInputElement>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [uploading, setUploading] = useState(false);

  // Each object URL is released once the preview moves on or the section goes away.
  const previewUrl = preview?.url ?? null;
  useEffect(() => {
    if (previewUrl === null) return undefined;
    return () => URL.revokeObjectURL(previewUrl);
  }, [previewUrl]);

  const previewUploaded = preview?.uploaded === true;
  useEffect(() => {
    if (!previewUploaded) return undefined;
    const timer = setTimeout(() => setPreview(null), previewClearMs);
    return () => clearTimeout(timer);
  }, [previewUploaded]);

  const handleFileChange = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    // Cleared so that choosing the same file again fires a change too.
    event.target.value = '';
    if (!file) return;
    const problem = checkPhotoFile(file);
    if (problem) {
      onFlash({ kind: 'error', text: problem });
      return;
    }
    if (!online) {
      onFlash({ kind: 'error', text: `${profileTexts.photoFailed}. ${profileTexts.photoNeedsNetwork}` });
      return;
    }
    setPreview({ url: URL.createObjectURL(file), uploaded: false });
    setUploading(true);
    try {
      const answer = await uploadAvatarRequest(file, file.name);
      if (!answer.success) {
        setPreview(null);
        onFlash({
          kind: 'error',
          text: `${profileTexts.photoFailed}: ${answer.message.trim() || failureTexts.avatarUploadFailed}`,
        });
        return;
      }
      // The device's copy first: the sidebar and the shell's user mirror read it. Sync would bring it too.
      await db.users.update(answer.user.id, { avatar: answer.user.avatar }).catch(() => 0);
      setUser({ ...answer.user, avatar: answer.avatarUrl });
      dispatchAvatarUpdated(answer.user.id);
      setPreview((current) => (current ? { ...current, uploaded: true } : null));
      onFlash({ kind: 'success', text: accountTexts.photoUpdated });
    } catch (error) {
      setPreview(null);
      onFlash({ kind: 'error', text: photoFailureMessage(error) });
    } finally {
      setUploading(false);
    }
  };

  const hasPhoto = Boolean(user.avatar);

  return (
    <section className={styles.card} aria-labelledby="profile-photo-title">
      <div className={styles.cardHeader}>
        <h2 id="profile-photo-title" className={styles.cardTitle}>
          Profile Photo
        </h2>
      </div>
      <div className={styles.photoRow}>
        <div className={styles.photoFrame} aria-busy={uploading}>
          {preview ? (
            <img
              className={styles.photoPreview}
              src={preview.url}
              alt="New profile photo preview"
              width={avatarSize}
              height={avatarSize}
            />
          ) : (
            <UserAvatar src={user.avatar} name={user.name} size={avatarSize} version={avatarVersion} />
          )}
        </div>
        <div className={styles.photoText}>
          <p className={styles.photoHint}>A square image works best. JPG, PNG, GIF or WebP, up to 5 MB.</p>
          <input
            ref={inputRef}
            type="file"
            accept="image/*"
            hidden
            tabIndex={-1}
            aria-label="Profile photo file"
            disabled={uploading}
            onChange={(event) => void handleFileChange(event)}
          />
          <div>
            <Button variant="secondary" size="small" busy={uploading} onClick={() => inputRef.current?.click()}>
              {uploading ? null : <Camera size={16} aria-hidden="true" />}
              {uploading ? 'Uploading...' : hasPhoto ? 'Change Photo' : 'Upload Photo'}
            </Button>
          </div>
        </div>
      </div>
    </section>
  );
}
