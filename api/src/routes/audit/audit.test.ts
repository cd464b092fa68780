import { describe, expect, test } from 'vitest';
import type { AuditPage } from '@office/sync-protocol';
import { expectRefusal, useSeededServer } from '../../../test/api-client';
import { pruneAuditTrail, recordAuditAlone } from '../../domain/audit/audit-trail';

const { server, people, call, registerEmployee } = useSeededServer();

describe('GET /api/audit', () => {
  test('only an admin reads the audit trail', async () => {
    for (const who of ['manager', 'alice'] as const)
      expectRefusal(await call(people[who], 'GET', '/api/audit'), 403, 'forbidden', 'You are not allowed to do that.');
    expectRefusal(await call(null, 'GET', '/api/audit'), 401, 'unauthenticated', 'Please sign in to continue.');
    expect((await call(people.admin, 'GET', '/api/audit')).status).toBe(200);
  });

  test('pages newest first and filters by person and by kind', async () => {
    // Two people nothing has been recorded of yet (a registration is not a sign-in).
    const bob = await registerEmployee('Paged Bob');
    const alice = await registerEmployee('Filtered Alice');
    const { manager } = people;
    const ip = '203.0.113.7';
    for (let i = 0; i < 3; i++)
      await recordAuditAlone(server.app.db, {
        action: 'sign_in',
        actor: { id: bob.user.id, name: bob.user.name },
        ip,
      });
    await recordAuditAlone(server.app.db, {
      action: 'employee_deactivated',
      actor: { id: manager.user.id, name: manager.user.name },
      target: { id: alice.user.id, name: alice.user.name },
      ip,
    });
    const first = await call<AuditPage>(people.admin, 'GET', `/api/audit?person=${bob.user.id}&limit=2`);
    expect(first.body.records).toHaveLength(2);
    expect(first.body.records.every((record) => record.actorId === bob.user.id && record.ip === ip)).toBe(true);
    expect(first.body.nextBefore).toBe(first.body.records[1]?.id);
    const second = await call<AuditPage>(
      people.admin,
      'GET',
      `/api/audit?person=${bob.user.id}&limit=2&before=${first.body.nextBefore ?? ''}`,
    );
    expect(second.body.records).toHaveLength(1);
    expect(second.body.nextBefore).toBeNull();
    const ids = [...first.body.records, ...second.body.records].map((record) => record.id);
    expect(ids).toEqual([...ids].sort().reverse());

    // A person is found as the one who acted and as the one it concerned.
    const aboutAlice = await call<AuditPage>(people.admin, 'GET', `/api/audit?person=${alice.user.id}`);
    expect(aboutAlice.body.records.map((record) => [record.action, record.actorName, record.targetName])).toEqual([
      ['employee_deactivated', manager.user.name, alice.user.name],
    ]);
    const deactivations = await call<AuditPage>(people.admin, 'GET', '/api/audit?action=employee_deactivated');
    expect(deactivations.body.records.every((record) => record.action === 'employee_deactivated')).toBe(true);
  });

  test('refuses bad filters with the invalid input answer', async () => {
    for (const query of ['action=everything', 'limit=0', 'limit=1000', 'person=not-an-id', 'before=x']) {
      const answer = await call(people.admin, 'GET', `/api/audit?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toMatchObject({ code: 'invalid_input' });
    }
  });

  test('no route writes, changes or deletes a record', async () => {
    const [record] = (await call<AuditPage>(people.admin, 'GET', '/api/audit?limit=1')).body.records;
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      expect((await call(people.admin, method, '/api/audit', {})).status).toBe(404);
      expect((await call(people.admin, method, `/api/audit/${record?.id ?? 'x'}`, {})).status).toBe(404);
    }
  });

  test('retention drops records older than the kept days and keeps the rest', async () => {
    const now = Date.now();
    const before = (await call<AuditPage>(people.admin, 'GET', '/api/audit?limit=200')).body.records.length;
    expect(await pruneAuditTrail(server.app.db, 365, new Date(now + 366 * 86_400_000))).toBe(before);
    expect((await call<AuditPage>(people.admin, 'GET', '/api/audit')).body.records).toEqual([]);
  });
});
