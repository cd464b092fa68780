import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';
import { poolOf } from '../db/postgres';
import { claimSlot, periodSlot } from '../jobs/claims';
import { runEvery } from '../jobs/schedule';
import { describeBackup, pruneBackups, takeBackup } from './backup';

/** How often a node looks whether a backup is due: the period's slot decides, so a restart does not double it. */
const CHECK_MS = 60_000;

/**
 * Backups while the server serves (BACKUP_DIR, every BACKUP_EVERY_HOURS, the newest BACKUP_KEEP kept). On SQLite
 * the copy runs on the server's own connection in small steps, so requests go on between them and their writes
 * reach the copy as they are made; with PostgreSQL, pg_dump runs beside the node, and one node of the cluster takes
 * each period's backup. Resolves with the stop.
 */
export function scheduleBackups(app: FastifyInstance, config: Config): () => void {
  const { dir, everyHours, keep } = config.backup;
  if (!dir || everyHours === 0) return () => undefined;
  const periodMs = everyHours * 3_600_000;
  const connection = poolOf(app.db) ? undefined : app.db.$client;
  return runEvery(
    CHECK_MS,
    async () => {
      if (!(await claimSlot(app.db, 'backup', periodSlot(new Date(), periodMs)))) return;
      const { dir: taken, manifest } = await takeBackup(
        { dataDir: config.dataDir, databaseUrl: config.databaseUrl, ...(connection ? { connection } : {}) },
        dir,
      );
      app.log.info(describeBackup(taken, manifest));
      const removed = await pruneBackups(dir, Math.max(1, keep));
      if (removed.length) app.log.info(`Removed ${removed.length} older backup(s) of ${dir}`);
    },
    (error) => app.log.error({ err: error }, 'the scheduled backup failed'),
  );
}
