import { Component, startTransition, useCallback, useEffect, useState, type ReactNode } from 'react';
import { hasStoredSession } from './auth/session-keys';
import { lazyChunk } from './lazy-chunk';
import { LoadFailure } from './load-failure';
import { preloadScreen } from './screens';
import { SplashScreen } from './splash/splash-screen';
import { hasSplashBeenShown, markSplashShown } from './splash/splash-session';
import styles from './app.module.css';

// The page's first script holds only React and the splash, so the splash paints as soon as it arrives.
// The rest of the app (session, local database, sync, routes) and the screen the address will show follow
// once that first paint is on screen, so they do not share the network with it, and are there by the time
// the splash ends. The app renders once both have loaded: no screen suspends on the way in.
const app = lazyChunk('app', () => import('./app').then((m) => m.App));

/** Longest wait for the first paint: a tab opened in the background paints nothing until it is shown. */
const firstPaintWaitMs = 1000;

/** Calls `run` once the page has shown its first text or image. */
function afterFirstContentfulPaint(run: () => void): () => void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    observer?.disconnect();
    clearTimeout(timer);
    run();
  };
  const timer = setTimeout(once, firstPaintWaitMs);
  const observer =
    typeof PerformanceObserver === 'undefined'
      ? null
      : new PerformanceObserver((list) => {
          if (list.getEntriesByName('first-contentful-paint').length > 0) once();
        });
  observer?.observe({ type: 'paint', buffered: true });
  return () => {
    done = true;
    observer?.disconnect();
    clearTimeout(timer);
  };
}

type AppLoad = { state: 'loading' } | { state: 'loaded' } | { state: 'failed'; error: unknown };

interface BoundaryState {
  error: { value: unknown } | null;
}

/** Shows why the app could not start instead of an empty page. */
class StartupBoundary extends Component<{ children: ReactNode }, BoundaryState> {
  override state: BoundaryState = { error: null };

  static getDerivedStateFromError(error: unknown): BoundaryState {
    return { error: { value: error } };
  }

  override render() {
    return this.state.error ? <LoadFailure error={this.state.error.value} page /> : this.props.children;
  }
}

/** The splash once per tab session (spec section 2), over the app that starts underneath it. */
export function Startup() {
  const [splashDone, setSplashDone] = useState(hasSplashBeenShown);
  const [appLoad, setAppLoad] = useState<AppLoad>({ state: 'loading' });
  useEffect(
    () =>
      afterFirstContentfulPaint(() => {
        const screen = preloadScreen(window.location.pathname, hasStoredSession());
        Promise.all([app.load(), screen]).then(
          // A transition: React renders the whole app in slices of a few milliseconds, between which the
          // browser stays responsive, instead of in one long task.
          () => startTransition(() => setAppLoad({ state: 'loaded' })),
          (error: unknown) => setAppLoad({ state: 'failed', error }),
        );
      }),
    [],
  );
  const handleSplashDone = useCallback(() => {
    markSplashShown();
    // The first screen too is rendered in slices; the splash stays until it is ready.
    startTransition(() => setSplashDone(true));
  }, []);
  const loading = (
    <div className={styles.loading} role="status">
      Loading...
    </div>
  );
  return (
    <StartupBoundary>
      {appLoad.state === 'loaded' ? (
        <app.Component splashDone={splashDone} />
      ) : splashDone ? (
        appLoad.state === 'failed' ? (
          <LoadFailure error={appLoad.error} page />
        ) : (
          loading
        )
      ) : null}
      {splashDone ? null : <SplashScreen onDone={handleSplashDone} />}
    </StartupBoundary>
  );
}
