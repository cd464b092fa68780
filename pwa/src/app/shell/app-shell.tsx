import { useCallback, useEffect, useRef, useState, type MouseEvent } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { Outlet, useLocation } from 'react-router-dom';
import type { User } from '@office/sync-protocol';
import { BootstrapProgress } from '../../sync/bootstrap-progress';
import { useOptionalWorkspace } from '../../sync/sync-context';
import { useSignOut } from '../../sync/use-sign-out';
import { useAuth } from '../auth/use-auth';
import { ScreenSuspense } from '../screen-suspense';
import { preloadSignedInScreens } from '../screens';
import { SearchButton, SearchDialogSlot, searchButtonSelector, useSearchShortcut } from '../../search/search-launcher';
import { HeaderStatus } from './header-status';
import { MobileTopBar } from './mobile-top-bar';
import { sectionOf } from './nav-items';
import { NotificationBell } from './notification-bell';
import { RefusedWriteAlerts } from './refused-write-alerts';
import { Sidebar } from './sidebar';
import { useIsMobile } from './use-is-mobile';
// The search button is shaped as the mobile top bar's buttons.
import topBarStyles from './mobile-top-bar.module.css';
import styles from './app-shell.module.css';

const sidebarId = 'app-sidebar';
const mainId = 'main-content';
/** How long after a navigation the new page's heading is waited for (a screen whose code still loads). */
const headingWaitMs = 5_000;

/** Focuses the page's h1 in `main` (focusable by script only), once it is there; returns a cancel function. */
function focusHeadingWhenShown(main: HTMLElement): () => void {
  const focusHeading = (): boolean => {
    const heading = main.querySelector('h1');
    if (!heading) return false;
    if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
    return true;
  };
  if (focusHeading()) return () => undefined;
  const observer = new MutationObserver(() => {
    if (focusHeading()) stop();
  });
  const timer = window.setTimeout(() => stop(), headingWaitMs);
  const stop = () => {
    observer.disconnect();
    window.clearTimeout(timer);
  };
  observer.observe(main, { childList: true, subtree: true });
  return stop;
}

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

  const [searchOpen, setSearchOpen] = useState(false);
  // The control that opened search gets focus back when search closes without opening anything (the
  // Modal does that too, but not when the dialog, a lazy chunk, mounted after focus had left the control).
  const searchOpener = useRef<HTMLElement | null>(null);
  const openSearch = useCallback(() => {
    searchOpener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setSearchOpen(true);
  }, []);
  const closeSearch = useCallback((returnFocus: boolean) => {
    setSearchOpen(false);
    if (!returnFocus) return;
    requestAnimationFrame(() => {
      if (document.activeElement?.closest('[role="dialog"]')) return;
      // Crossing the phone breakpoint while search was open (a rotated tablet) re-mounts the header: its new
      // Search button stands in for the one that opened it.
      const opener = searchOpener.current;
      const target = opener?.isConnected ? opener : document.querySelector<HTMLElement>(searchButtonSelector);
      target?.focus();
    });
  }, []);
  useSearchShortcut(openSearch);

  const closeMenu = useCallback(() => setMenuOpen(false), []);
  const toggleMenu = useCallback(() => setMenuOpen((open) => !open), []);
  const mainRef = useRef<HTMLElement>(null);

  // Escape closes the open mobile menu and hands focus back to its toggle; focus starts on the menu's
  // first item, and the page behind neither scrolls nor takes focus while it is open.
  useEffect(() => {
    if (!drawerOpen) {
      return undefined;
    }
    const toggle = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    document.querySelector<HTMLElement>(`#${sidebarId} nav a`)?.focus();
    const handleKeyDown = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') {
        setMenuOpen(false);
        toggle?.focus();
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

  // After a navigation, focus moves to the new page's heading, so keyboard and screen reader users
  // start there (the first page of a visit keeps the browser's own start).
  const { pathname } = useLocation();
  const shownPath = useRef(pathname);
  useEffect(() => {
    const main = mainRef.current;
    if (shownPath.current === pathname || !main || !workspaceReady) return undefined;
    shownPath.current = pathname;
    return focusHeadingWhenShown(main);
  }, [pathname, workspaceReady]);

  const handleSkip = (event: MouseEvent<HTMLAnchorElement>) => {
    const main = mainRef.current;
    if (!main) return;
    event.preventDefault();
    const heading = main.querySelector('h1');
    if (heading && !heading.hasAttribute('tabindex')) heading.tabIndex = -1;
    (heading ?? main).focus();
  };

  return (
    <div className={styles.shell}>
      <a className={styles.skipLink} href={`#${mainId}`} onClick={handleSkip}>
        Skip to content
      </a>
      {isMobile && (
        <MobileTopBar menuOpen={drawerOpen} sidebarId={sidebarId} onToggleMenu={toggleMenu} onOpenSearch={openSearch} />
      )}
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
      <div className={styles.content} inert={drawerOpen}>
        {!isMobile && (
          <header className={styles.contentHeader}>
            <SectionName pathname={pathname} />
            <div className={styles.headerActions}>
              <HeaderStatus />
              <SearchButton className={topBarStyles.iconButton} onOpen={openSearch} />
              <NotificationBell />
            </div>
          </header>
        )}
        <main ref={mainRef} className={styles.main} id={mainId} tabIndex={-1}>
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
      {workspaceReady && <SearchDialogSlot open={searchOpen} onClose={closeSearch} />}
    </div>
  );
}

/** Where the page sits, at the left of the desktop header: it stays in view while a long page scrolls. */
function SectionName({ pathname }: { pathname: string }) {
  const section = sectionOf(pathname);
  if (!section) return <span />;
  const Icon = section.icon;
  return (
    <p className={styles.section}>
      <Icon size={16} aria-hidden="true" />
      <span>{section.label}</span>
    </p>
  );
}
