import { NavLink, useLocation, useNavigate } from 'react-router-dom';
import { LogOut, Settings } from 'lucide-react';
import type { User } from '@office/sync-protocol';
import { BrandMark } from '../../components/brand-mark';
import { navItems } from './nav-items';
import { SidebarUser } from './sidebar-user';
import styles from './sidebar.module.css';

interface SidebarProps {
  id: string;
  user: User;
  avatarVersion: number;
  /** Mobile only: whether the slide-in sidebar is open. Ignored on desktop. */
  open: boolean;
  /** Called after any navigation from the sidebar (closes it on mobile). */
  onNavigate: () => void;
  onLogout: () => void;
}

/** The signed-in navigation: fixed on desktop, sliding in over an overlay on mobile. */
export function Sidebar({ id, user, avatarVersion, open, onNavigate, onLogout }: SidebarProps) {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const onSettings = pathname === '/profile-settings';
  const items = navItems.filter((item) => !item.visibleTo || item.visibleTo(user));

  const handleSettings = (): void => {
    onNavigate();
    void navigate('/profile-settings');
  };

  return (
    <aside id={id} className={`${styles.sidebar} ${open ? styles.open : ''}`} aria-label="Sidebar">
      <div className={styles.brand}>
        <BrandMark size={38} />
        <div className={styles.brandText}>
          <span className={styles.brandName}>Office</span>
          <span className={styles.brandSubtitle}>Workspace</span>
        </div>
      </div>

      <nav className={styles.nav} aria-label="Main navigation">
        <ul className={styles.navList}>
          {items.map(({ to, label, icon: Icon, alsoAt }) => (
            <li key={to}>
              <NavLink
                to={to}
                className={({ isActive }) =>
                  `${styles.navItem} ${isActive || alsoAt?.includes(pathname) ? styles.active : ''}`
                }
                onClick={onNavigate}
              >
                <Icon size={19} aria-hidden="true" className={styles.navIcon} />
                <span>{label}</span>
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>

      <div className={styles.footer}>
        <div className={styles.footerActions}>
          <button
            type="button"
            className={`${styles.footerButton} ${onSettings ? styles.active : ''}`}
            aria-current={onSettings ? 'page' : undefined}
            onClick={handleSettings}
          >
            <Settings size={18} aria-hidden="true" />
            <span>Settings</span>
          </button>
          <button type="button" className={`${styles.footerButton} ${styles.logout}`} onClick={onLogout}>
            <LogOut size={18} aria-hidden="true" />
            <span>Logout</span>
          </button>
        </div>
        <SidebarUser user={user} avatarVersion={avatarVersion} />
      </div>
    </aside>
  );
}
