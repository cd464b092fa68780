import { useEffect } from 'react';
import { TriangleAlert } from 'lucide-react';
import { Button } from '../components/button';
import { EmptyState } from '../components/empty-state';
import { ChunkLoadError } from './lazy-chunk';
import styles from './app.module.css';

/**
 * A part of the app that failed: one whose code could not be loaded (spec section 8: "ChunkLoadError" with
 * "Loading chunk … failed" plus the type and URL), or one that threw while drawing. Reloading fetches the
 * app's current files, which also ends the case of a page older than the deployed version.
 * `page`: it stands alone in the window (before the shell exists).
 */
export function LoadFailure({ error, page = false }: { error: unknown; page?: boolean }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const chunkFailed = error instanceof ChunkLoadError;
  return (
    <div className={page ? styles.loadFailurePage : styles.loadFailure} role="alert">
      <EmptyState
        variant="notice"
        icon={<TriangleAlert size={26} />}
        title={chunkFailed ? 'This screen could not be loaded' : 'Something went wrong on this screen'}
        text={error instanceof Error ? `${error.name}: ${error.message}` : String(error)}
        classNames={{ text: styles.loadFailureText }}
      >
        <Button onClick={() => window.location.reload()}>Reload</Button>
      </EmptyState>
    </div>
  );
}
