import { Suspense, type ReactNode } from 'react';
import styles from './app.module.css';

/**
 * Shows "Loading..." in the place of a screen whose code is still on its way. `page`: the screen fills the
 * window (sign-in); otherwise it fills the shell's main area. Navigations between screens keep the current
 * one on view meanwhile (the router renders them in a transition).
 */
export function ScreenSuspense({ page = false, children }: { page?: boolean; children: ReactNode }) {
  const fallback = (
    <div className={page ? styles.loading : styles.screenLoading} role="status">
      Loading...
    </div>
  );
  return <Suspense fallback={fallback}>{children}</Suspense>;
}
