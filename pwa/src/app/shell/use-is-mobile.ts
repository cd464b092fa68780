import { useSyncExternalStore } from 'react';
import { limits } from '@office/sync-protocol';

/** The mobile layout applies at 768 px or less (spec section 2). */
export const mobileMediaQuery = `(max-width: ${limits.mobileBreakpointPx}px)`;

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia(mobileMediaQuery);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

const getSnapshot = (): boolean => window.matchMedia(mobileMediaQuery).matches;

/** True while the viewport is in the mobile layout. */
export function useIsMobile(): boolean {
  return useSyncExternalStore(subscribe, getSnapshot, () => false);
}
