import { Component, Suspense, useCallback, useEffect, useState, type ReactNode } from 'react';
import { lazyChunk } from './lazy-chunk';
import { LoadFailure } from './load-failure';
import { preloadScreen } from './screens';
import { SplashScreen } from './splash/splash-screen';
import { hasSplashBeenShown, markSplashShown } from './splash/splash-session';
import styles from './app.module.css';

// The page's first script holds only React and the splash, so the splash paints as soon as it arrives.
// The rest of the app (session, local database, sync, routes) and the screen of the address loaded follow
// once that first paint is on screen, so they do not share the network with it, and are ready by the time
// the splash ends.
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

interface BoundaryState {
  error: { value: unknown } | null;
}

/** Shows why the app could not start (its code did not load) instead of an empty page. */
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
  const [appWanted, setAppWanted] = useState(false);
  useEffect(
    () =>
      afterFirstContentfulPaint(() => {
        setAppWanted(true);
        preloadScreen(window.location.pathname);
      }),
    [],
  );
  const handleSplashDone = useCallback(() => {
    markSplashShown();
    setSplashDone(true);
  }, []);
  const loading = (
    <div className={styles.loading} role="status">
      Loading...
    </div>
  );
  return (
    <StartupBoundary>
      {appWanted ? (
        <Suspense fallback={splashDone ? loading : null}>
          <app.Component splashDone={splashDone} />
        </Suspense>
      ) : (
        splashDone && loading
      )}
      {splashDone ? null : <SplashScreen onDone={handleSplashDone} />}
    </StartupBoundary>
  );
}
