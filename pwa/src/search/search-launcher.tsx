import { Suspense, useEffect, useLayoutEffect } from 'react';
import { Search } from 'lucide-react';
import { lazyChunk } from '../app/lazy-chunk';
import { whenIdle } from '../app/when-idle';

/** The dialog and its index are a chunk of their own: the first paint never waits for them. */
const searchDialog = lazyChunk('search-dialog', () => import('./search-dialog').then((m) => m.SearchDialog));

/** Whether a key press is Ctrl+K (Cmd+K on a Mac). */
export const isSearchShortcut = (event: KeyboardEvent): boolean =>
  (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'k';

/**
 * Ctrl+K (Cmd+K) anywhere in the signed-in app calls `onOpen`; the search code is loaded when the
 * browser is next idle, so the first open does not wait for it (offline too).
 */
export function useSearchShortcut(onOpen: () => void): void {
  // Listening before the header paints: the signed-in shell renders outside any user event, and a passive
  // effect would leave it on screen, its Search button showing, deaf to Ctrl+K until React ran the effects.
  useLayoutEffect(() => {
    const handleKeyDown = (event: KeyboardEvent) => {
      if (!isSearchShortcut(event)) return;
      event.preventDefault();
      onOpen();
    };
    document.addEventListener('keydown', handleKeyDown);
    return () => document.removeEventListener('keydown', handleKeyDown);
  }, [onOpen]);

  useEffect(() => whenIdle(() => void searchDialog.load().catch(() => undefined)), []);
}

/** Finds the header's search button, the one that gets focus back when search closes. */
export const searchButtonSelector = '[data-search-button]';

/** The header's search button (desktop header and mobile top bar). */
export function SearchButton({ className, onOpen }: { className: string | undefined; onOpen: () => void }) {
  return (
    <button
      type="button"
      className={className}
      aria-label="Search"
      title="Search (Ctrl+K)"
      aria-haspopup="dialog"
      aria-keyshortcuts="Control+K Meta+K"
      data-search-button
      onClick={onOpen}
    >
      <Search size={20} aria-hidden="true" />
    </button>
  );
}

/**
 * The search dialog while open; nothing is shown while its code loads (a moment, and only the first time).
 * `onClose(returnFocus)`: false when an item was opened (focus goes where that item leads).
 */
export function SearchDialogSlot({ open, onClose }: { open: boolean; onClose: (returnFocus: boolean) => void }) {
  if (!open) return null;
  return (
    <Suspense fallback={null}>
      <searchDialog.Component onClose={() => onClose(true)} onOpened={() => onClose(false)} />
    </Suspense>
  );
}
