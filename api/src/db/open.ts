import { join } from 'node:path';
import type { PostgresTimeouts } from '../config';
import { openDatabase, type Db } from './client';
import { GroupCommit, walFlusher } from './group-commit';
import { openPostgres, withStartupLock, type PoolClient } from './postgres';

/** The workspace's database, whichever dialect: the handle, when a commit is on disk, and how to close it. */
export interface WorkspaceDatabase {
  db: Db;
  /** Resolves once every write committed so far is on disk. */
  durable: () => Promise<void>;
  /** Resolves once no flush to disk is running: commits made then share the next one (see GroupCommit.idle). */
  flushIdle: () => Promise<void>;
  /** Runs `work` while no other node runs its own (the first seed): one wins, the others wait and see its result. */
  exclusively: <T>(work: () => Promise<T>) => Promise<T>;
  close: () => Promise<void>;
}

/**
 * PostgreSQL when DATABASE_URL names one (config.databaseUrl), else the SQLite file in DATA_DIR. SQLite commits
 * hand their pages to the OS and one group fsync of the WAL makes a batch of them durable; a PostgreSQL commit
 * returns once it is on disk (synchronous_commit), so there is nothing more to wait for.
 */
export async function openWorkspaceDatabase(config: {
  dataDir: string;
  databaseUrl: string | null;
  postgresTimeouts: PostgresTimeouts;
}): Promise<WorkspaceDatabase> {
  if (config.databaseUrl) {
    const { db, close } = await openPostgres(config.databaseUrl, config.postgresTimeouts);
    return {
      db,
      durable: () => Promise.resolve(),
      flushIdle: () => Promise.resolve(),
      exclusively: (work) => withStartupLock(db.$client as unknown as { connect(): Promise<PoolClient> }, work),
      close,
    };
  }
  const file = join(config.dataDir, 'workspace.db');
  const db = openDatabase(file);
  const wal = walFlusher(file);
  const totalChanges = db.$client.prepare('SELECT total_changes()').pluck();
  const groupCommit = new GroupCommit(() => totalChanges.get() as number, wal.flush);
  return {
    db,
    durable: () => groupCommit.durable(),
    flushIdle: () => groupCommit.idle(),
    // One node per SQLite file.
    exclusively: (work) => work(),
    close: async () => {
      wal.close();
      db.$client.close();
    },
  };
}
