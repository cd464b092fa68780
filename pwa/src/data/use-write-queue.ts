import { useCallback, useRef, useState } from 'react';

/** Local writes run one after another, in the order they were asked for. */
export interface WriteQueue {
  /** Runs `write` once every earlier one has settled; its promise is the write's. */
  run: <T>(write: () => Promise<T>) => Promise<T>;
  /** Whether a write is queued or running (for a short spinner; nothing waits on it). */
  busy: boolean;
}

/**
 * Orders a composer's sends: each takes its text at once and queues its local write behind the
 * previous one, so messages typed back to back are stored (and pushed) in the order they were typed.
 */
export function useWriteQueue(): WriteQueue {
  // Never rejects: a failed write does not hold up the ones behind it.
  const tail = useRef<Promise<void>>(Promise.resolve());
  const [running, setRunning] = useState(0);

  const run = useCallback(<T>(write: () => Promise<T>): Promise<T> => {
    setRunning((count) => count + 1);
    const result = tail.current.then(write);
    const settled = () => setRunning((count) => count - 1);
    tail.current = result.then(settled, settled);
    return result;
  }, []);

  return { run, busy: running > 0 };
}
