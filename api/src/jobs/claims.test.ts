import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestServer, type TestServer } from '../../test/support';
import { claimSlot, hourSlot, periodSlot } from './claims';
import { runHourlyDueChecks } from './due-checks';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ seed: false });
});

afterAll(async () => {
  await server.close();
});

test('a slot of a job is claimed once; a later slot again; an earlier one never', async () => {
  const db = server.app.db;
  expect(await claimSlot(db, 'test-job', '2026-11-26T10')).toBe(true);
  expect(await claimSlot(db, 'test-job', '2026-11-26T10')).toBe(false);
  expect(await claimSlot(db, 'other-job', '2026-11-26T10')).toBe(true);
  expect(await claimSlot(db, 'test-job', '2026-11-26T11')).toBe(true);
  expect(await claimSlot(db, 'test-job', '2026-11-26T10')).toBe(false);
});

test('slots name the clock hour, and periods that sort in time order', () => {
  expect(hourSlot(new Date('2026-11-26T10:59:59Z'))).toBe('2026-11-26T10');
  const early = periodSlot(new Date('2026-11-26T09:00:01Z'), 2000);
  const late = periodSlot(new Date('2026-11-26T10:00:01Z'), 2000);
  expect(early < late).toBe(true);
  expect(periodSlot(new Date(1_000_000_000_999), 60_000)).toBe(periodSlot(new Date(1_000_000_000_000), 60_000));
});

test('the hourly due checks run once in an hour, however many times they are started in it', async () => {
  const db = server.app.db;
  const at = new Date('2031-03-04T08:15:00Z');
  const runs = await Promise.all([
    runHourlyDueChecks(db, server.app.flush, at),
    runHourlyDueChecks(db, server.app.flush, at),
    runHourlyDueChecks(db, server.app.flush, new Date('2031-03-04T08:45:00Z')),
  ]);
  expect(runs.filter((run) => run !== null)).toEqual([{ dueSoon: 0, overdue: 0 }]);
  expect(await runHourlyDueChecks(db, server.app.flush, new Date('2031-03-04T09:00:00Z'))).toEqual({
    dueSoon: 0,
    overdue: 0,
  });
});
