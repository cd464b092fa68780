import { useCallback, useEffect, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { Outlet } from 'react-router-dom';
import type { User } from '@office/sync-protocol';
import { BootstrapProgress } from '../../sync/bootstrap-progress';
import { useOptionalWorkspace } from '../../sync/sync-context';
import { useSignOut } from '../../sync/use-sign-out';
import { useAuth } from '../auth/use-auth';
import { ScreenSuspense } from '../screen-suspense';
import { preloadSignedInScreens } from '../screens';
import { HeaderStatus } from './header-status';
import { MobileTopBar } from './mobile-top-bar';
import { NotificationBell } from './notification-bell';
import { RefusedWriteAlerts } from './refused-write-alerts';
import { Sidebar } from './sidebar';
import { useIsMobile } from './use-is-mobile';
import styles from './app-shell.module.css';

const sidebarId = 'app-sidebar';

/** The signed-in layout: sidebar, a header with the status slot and the notification bell, and the routed screen. */
export function AppShell({ user }: { user: User }) {
  const { avatarVersion } = useAuth();
  const signOut = useSignOut();
  // Screens read the local database; it opens right after sign-in.
  const workspace = useOptionalWorkspace();
  const workspaceReady = workspace !== null;
  // The sidebar shows the user as this device has them, a pending rename included.
  const localUser = useLiveQuery(() => workspace?.db.users.get(user.id), [workspace, user.id]);
  const isMobile = useIsMobile();
  const [menuOpen, setMenuOpen] = useState(false);
  const drawerOpen = isMobile && menuOpen;

  useEffect(() => preloadSignedInScreens(), []);

  const closeMenu = useCallback(() => setMenuOpen(false), []);
  const toggleMenu = useCallback(() => setMenuOpen((open) => !open), []);

  // Escape closes the open mobile menu; the page behind does not scroll while it is open.
  useEffect(() => {
    if (!drawerOpen) {
      return undefined;
    }
    const handleKeyDown = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') {
        setMenuOpen(false);
      }
    };
    document.addEventListener('keydown', handleKeyDown);
    const previousOverflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      document.removeEventListener('keydown', handleKeyDown);
      document.body.style.overflow = previousOverflow;
    };
  }, [drawerOpen]);

  return (
    <div className={styles.shell}>
      {isMobile && <MobileTopBar menuOpen={drawerOpen} sidebarId={sidebarId} onToggleMenu={toggleMenu} />}
      <Sidebar
        id={sidebarId}
        user={localUser ?? user}
        avatarVersion={avatarVersion}
        open={drawerOpen}
        onNavigate={closeMenu}
        onLogout={() => void signOut()}
      />
      {drawerOpen && (
        <button type="button" className={styles.overlay} aria-label="Close menu" tabIndex={-1} onClick={closeMenu} />
      )}
      <div className={styles.content}>
        {!isMobile && (
          <header className={styles.contentHeader}>
            <HeaderStatus />
            <NotificationBell />
          </header>
        )}
        <main className={styles.main} id="main-content">
          {workspaceReady ? (
            <ScreenSuspense>
              <BootstrapProgress />
              <Outlet />
            </ScreenSuspense>
          ) : (
            <p role="status">Loading...</p>
          )}
        </main>
        {workspaceReady && <RefusedWriteAlerts />}
      </div>
    </div>
  );
}
