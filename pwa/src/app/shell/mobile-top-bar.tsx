import { Menu, X } from 'lucide-react';
import { BrandMark } from '../../components/brand-mark';
import { SearchButton } from '../../search/search-launcher';
import { HeaderStatus } from './header-status';
import { NotificationBell } from './notification-bell';
import styles from './mobile-top-bar.module.css';

interface MobileTopBarProps {
  menuOpen: boolean;
  /** The id of the sidebar the toggle controls. */
  sidebarId: string;
  onToggleMenu: () => void;
  onOpenSearch: () => void;
}

/** The mobile header: logo and name with the sync state under it, search, notification bell and menu toggle. */
export function MobileTopBar({ menuOpen, sidebarId, onToggleMenu, onOpenSearch }: MobileTopBarProps) {
  return (
    <header className={styles.bar}>
      <div className={styles.brand}>
        <BrandMark size={32} />
        {/* The sync state sits under the name: beside it, neither had room for its words on a phone. */}
        <div className={styles.brandText}>
          <span className={styles.brandName}>Office Workspace</span>
          <HeaderStatus compact />
        </div>
      </div>
      <div className={styles.actions}>
        <SearchButton className={styles.iconButton} onOpen={onOpenSearch} />
        <NotificationBell />
        <button
          type="button"
          className={styles.iconButton}
          aria-label={menuOpen ? 'Close menu' : 'Open menu'}
          aria-expanded={menuOpen}
          aria-controls={sidebarId}
          onClick={onToggleMenu}
        >
          {menuOpen ? <X size={22} aria-hidden="true" /> : <Menu size={22} aria-hidden="true" />}
        </button>
      </div>
    </header>
  );
}
