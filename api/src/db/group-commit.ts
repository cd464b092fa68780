import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';

/**
 * Group commit: many transactions, one fsync. SQLite runs with `synchronous = NORMAL` in WAL mode, so
 * a commit only hands its pages to the operating system; before a write is acknowledged, `durable()`
 * waits for an fsync of the WAL that began after the commit. Every write that committed meanwhile
 * shares that fsync, so an acknowledged write survives a power cut as with `synchronous = FULL`, while
 * the event loop is never blocked on the disk (FULL fsyncs inside each commit: about 5 ms here).
 */
export class GroupCommit {
  /** The change counter when the newest finished flush began: everything up to it is on disk. */
  private durableUpTo: number;
  private running: Promise<void> | null = null;
  /** The change counter when the running flush began. */
  private runningUpTo = 0;
  private queued: Promise<void> | null = null;

  constructor(
    /** The connection's running count of changed rows (SQLite's total_changes()). */
    private readonly changeCount: () => number,
    /** Forces what was written so far to the disk. */
    private readonly flush: () => Promise<void>,
  ) {
    this.durableUpTo = changeCount();
  }

  /** Resolves once every write committed before this call is on disk. */
  durable(): Promise<void> {
    if (this.changeCount() <= this.durableUpTo) return Promise.resolve();
    if (!this.running) return this.start();
    if (this.changeCount() <= this.runningUpTo) return this.running;
    // The running flush began before this caller's commit: wait for the next one.
    this.queued ??= this.running.then(
      () => this.startQueued(),
      () => this.startQueued(),
    );
    return this.queued;
  }

  /**
   * Resolves once the flush running now (and the one queued behind it) has ended. A commit made before then waits
   * for a later flush anyway, so a writer that waits here commits more at once for the same wait.
   */
  async idle(): Promise<void> {
    await (this.queued ?? this.running)?.catch(() => undefined);
  }

  private startQueued(): Promise<void> {
    this.queued = null;
    return this.start();
  }

  private start(): Promise<void> {
    const upTo = this.changeCount();
    this.runningUpTo = upTo;
    const run = this.flush().then(() => {
      this.durableUpTo = Math.max(this.durableUpTo, upTo);
    });
    this.running = run;
    const clear = () => {
      if (this.running === run) this.running = null;
    };
    run.then(clear, clear);
    return run;
  }
}

/** Flushes a SQLite database's WAL file (or, while there is none, the database file) with fsync. */
export function walFlusher(databaseFile: string): { flush: () => Promise<void>; close: () => void } {
  let fd: number | null = null;
  const open = (): number => {
    if (fd !== null) return fd;
    try {
      fd = openSync(`${databaseFile}-wal`, 'r');
    } catch {
      // No WAL yet: what was committed went through a checkpoint, which SQLite synced itself.
      return openSync(databaseFile, 'r');
    }
    return fd;
  };
  return {
    flush: () =>
      new Promise((resolve, reject) => {
        const target = open();
        // Decided before the fsync: `close()` may clear `fd` meanwhile, and the WAL descriptor is then closed there.
        const transient = target !== fd;
        fsync(target, (error) => {
          if (transient) closeSync(target);
          if (error) reject(error);
          else resolve();
        });
      }),
    close: () => {
      if (fd === null) return;
      fsyncSync(fd);
      closeSync(fd);
      fd = null;
    },
  };
}
