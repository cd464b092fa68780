import { afterEach, describe, expect, test } from 'vitest';
import type { AuditPage } from '@office/sync-protocol';
import { freshDb } from '../../test/sync-support';
import { auditPagesKept, keepAuditPage, keptAuditPage } from './audit-cache';
import type { WorkspaceDb } from './db';

let db: WorkspaceDb | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
});

const page = (n: number): AuditPage => ({
  records: [
    {
      id: `0190a5c0-0000-7000-8000-${String(n).padStart(12, '0')}`,
      at: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString(),
      action: 'sign_in',
      actorId: null,
      actorName: null,
      targetId: null,
      targetName: null,
      ip: '203.0.113.1',
      details: { method: 'password' },
    },
  ],
  nextBefore: null,
});

describe('the audit log cache', () => {
  test('keeps each page under its filters and position, read back as the server sent it', async () => {
    db = freshDb('u-admin');
    await keepAuditPage(db, {}, page(1));
    await keepAuditPage(db, { action: 'sign_in' }, page(2));
    await keepAuditPage(db, { action: 'sign_in', before: page(9).records[0]?.id }, page(3));
    expect(await keptAuditPage(db, {})).toMatchObject(page(1));
    expect(await keptAuditPage(db, { action: 'sign_in' })).toMatchObject(page(2));
    expect(await keptAuditPage(db, { action: 'sign_in', before: page(9).records[0]?.id })).toMatchObject(page(3));
    expect(await keptAuditPage(db, { action: 'sign_out' })).toBeUndefined();
    // Read again, a page replaces its copy.
    await keepAuditPage(db, {}, page(4));
    expect(await keptAuditPage(db, {})).toMatchObject(page(4));
  });

  test('is bounded: past its size, the pages read longest ago go', async () => {
    db = freshDb('u-admin');
    const start = Date.UTC(2026, 0, 1);
    for (let n = 0; n < auditPagesKept + 5; n++)
      await keepAuditPage(db, { before: page(n).records[0]?.id }, page(n), new Date(start + n * 1000));
    expect(await db.auditPages.count()).toBe(auditPagesKept);
    expect(await keptAuditPage(db, { before: page(4).records[0]?.id })).toBeUndefined();
    expect(await keptAuditPage(db, { before: page(5).records[0]?.id })).toBeDefined();
  });
});
