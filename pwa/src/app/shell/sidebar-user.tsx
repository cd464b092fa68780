import type { User } from '@office/sync-protocol';
import { roleLabel } from '../../components/role-badge';
import { UserAvatar } from '../../components/user-avatar';
import styles from './sidebar.module.css';

interface SidebarUserProps {
  user: User;
  avatarVersion: number;
}

/** The signed-in user at the foot of the sidebar. */
export function SidebarUser({ user, avatarVersion }: SidebarUserProps) {
  return (
    <div className={styles.user}>
      <UserAvatar src={user.avatar} name={user.name} size={38} version={avatarVersion} />
      <div className={styles.userText}>
        <span className={styles.userName} title={user.name}>
          {user.name}
        </span>
        <span className={styles.userRole}>{roleLabel(user.role)}</span>
      </div>
    </div>
  );
}
