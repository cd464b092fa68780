import type { AuditPage } from '@office/sync-protocol';
import type { AuditPageQuery } from '../api/audit-api';
import type { WorkspaceDb } from './db';

/** Audit log pages a device keeps for reading offline: the newest read, about 10 000 records at most. */
export const auditPagesKept = 200;

/** The cache's key of a page: its filters and where it starts. */
export const auditPageKey = ({ person, action, before }: AuditPageQuery): string =>
  JSON.stringify([person ?? '', action ?? '', before ?? '']);

/** Keeps a page read from the server; past the bound, the pages read longest ago go. */
export async function keepAuditPage(
  db: WorkspaceDb,
  query: AuditPageQuery,
  page: AuditPage,
  now: Date = new Date(),
): Promise<void> {
  await db.transaction('rw', db.auditPages, async () => {
    await db.auditPages.put({ key: auditPageKey(query), ...page, savedAt: now.toISOString() });
    const excess = (await db.auditPages.count()) - auditPagesKept;
    if (excess > 0) await db.auditPages.orderBy('savedAt').limit(excess).delete();
  });
}

/** A page as this device last read it, with when; undefined when it never read it. */
export const keptAuditPage = (db: WorkspaceDb, query: AuditPageQuery) => db.auditPages.get(auditPageKey(query));
