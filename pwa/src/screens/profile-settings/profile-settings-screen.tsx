import { PageHeader } from '../../components/page-header';
import { useFlash } from '../../components/use-flash';
import { useLocalUser } from '../../data/hooks';
import { useWorkspace } from '../../sync/sync-context';
import { BasicInformation } from './basic-information';
import { NotificationsSection } from './notifications-section';
import { PasswordSection } from './password-section';
import { ProfilePhoto } from './profile-photo';
import styles from './profile-settings.module.css';

/** Profile Settings (/profile-settings): the signed-in user's own details, from IndexedDB. */
export function ProfileSettingsScreen() {
  const { ctx } = useWorkspace();
  const user = useLocalUser(ctx.userId);
  const [flash, showFlash] = useFlash();

  return (
    <div className={styles.page}>
      <PageHeader title="Profile Settings" subtitle="Manage your photo, details and password" />
      {flash ? (
        <div
          className={`${styles.flash} ${flash.kind === 'success' ? styles.flashSuccess : styles.flashError}`}
          role={flash.kind === 'error' ? 'alert' : 'status'}
        >
          {flash.text}
        </div>
      ) : null}
      {user ? (
        <>
          <ProfilePhoto user={user} onFlash={showFlash} />
          <BasicInformation user={user} onFlash={showFlash} />
          <PasswordSection onFlash={showFlash} />
          <NotificationsSection onFlash={showFlash} />
        </>
      ) : (
        <p role="status">Loading...</p>
      )}
    </div>
  );
}
