import { describe, expect, test } from 'vitest';
import { desc, eq } from 'drizzle-orm';
import {
  uuidv7,
  type AuditAction,
  type AuditPage,
  type AuditRecord,
  type AuthResponse,
  type CreatedInvitationResponse,
  type PasswordResetResponse,
} from '@office/sync-protocol';
import { auditRecords, users, workspaceSettings } from '../../db/schema';
import { DEMO_PASSWORD } from '../../db/seed';
import { mutation, useSeededServer, type Answer, type Session } from '../../../test/api-client';
import { bearer } from '../../../test/support';

// Issue 44, "Audit trail": every administrative act leaves one record of who did it, what, to whom, when and from
// which address (the client's as a trusted proxy forwards it); notification preferences leave none.

const { server, people, db, push } = useSeededServer({ config: { trustProxy: ['127.0.0.1'] } });

/** A request from `ip`, as the proxy in front of the server forwards it. */
async function from<T = unknown>(
  ip: string,
  session: Session | null,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: Record<string, unknown>,
): Promise<Answer<T>> {
  const res = await server.app.inject({
    method,
    url,
    headers: { 'x-forwarded-for': ip, ...(session ? bearer(session.token) : {}) },
    ...(payload === undefined ? {} : { payload }),
  });
  return { status: res.statusCode, body: res.json<T>() };
}

/** The records of one kind written since `since` (an id; records' ids grow with time), oldest first, as admins read them. */
async function recordsSince(since: string, action: AuditAction): Promise<AuditRecord[]> {
  const page = await from<AuditPage>('127.0.0.1', people.admin, 'GET', `/api/audit?action=${action}&limit=200`);
  expect(page.status).toBe(200);
  return page.body.records.filter((record) => record.id > since).reverse();
}

/** The newest record's id: what a test's records come after. */
async function mark(): Promise<string> {
  const [newest] = await db()
    .select({ id: auditRecords.id })
    .from(auditRecords)
    .orderBy(desc(auditRecords.id))
    .limit(1);
  return newest?.id ?? '';
}

let joiners = 0;
/** A fresh employee with a password of their own, signed in. */
async function joiner(name: string): Promise<Session & { email: string }> {
  const email = `audit.${++joiners}.${Date.now()}@example.com`;
  const res = await from<AuthResponse>('127.0.0.1', null, 'POST', '/api/auth/register', {
    name,
    email,
    password: 'secret99',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { token: res.body.token, user: res.body.user, email };
}

describe('sign-ins', () => {
  test('a sign-in is recorded with its person, method and address; failures with the email tried and why', async () => {
    const since = await mark();
    const person = await joiner('Signing Person');
    const ok = await from<AuthResponse>('198.51.100.4', null, 'POST', '/api/auth/login', {
      email: person.email,
      password: 'secret99',
    });
    expect(ok.status).toBe(200);
    const wrong = await from('198.51.100.5', null, 'POST', '/api/auth/login', {
      email: person.email,
      password: 'not-it-99',
    });
    expect(wrong.status).toBe(401);
    const unknown = await from('198.51.100.6', null, 'POST', '/api/auth/login', {
      email: 'nobody.here@example.com',
      password: 'whatever1',
    });
    expect(unknown.status).toBe(401);

    const signIns = await recordsSince(since, 'sign_in');
    expect(signIns).toEqual([
      expect.objectContaining({
        actorId: person.user.id,
        actorName: 'Signing Person',
        targetId: null,
        ip: '198.51.100.4',
        details: { method: 'password' },
      }),
    ]);
    const failures = await recordsSince(since, 'sign_in_failed');
    expect(
      failures.map(({ actorId, targetId, targetName, ip, details }) => ({
        actorId,
        targetId,
        targetName,
        ip,
        details,
      })),
    ).toEqual([
      {
        actorId: null,
        targetId: person.user.id,
        targetName: 'Signing Person',
        ip: '198.51.100.5',
        details: { email: person.email, method: 'password', reason: 'wrong password' },
      },
      {
        actorId: null,
        targetId: null,
        targetName: null,
        ip: '198.51.100.6',
        details: { email: 'nobody.here@example.com', method: 'password', reason: 'no account has this email' },
      },
    ]);
    // Never the password tried.
    const stored = await db().select().from(auditRecords);
    expect(JSON.stringify(stored)).not.toContain('not-it-99');
    // A registration is an account made, not a sign-in: it leaves no sign-in record.
    expect(signIns.some((record) => record.ip === '127.0.0.1')).toBe(false);
  });

  test('a sign-out is recorded once, from its address', async () => {
    const person = await joiner('Leaving Person');
    const since = await mark();
    expect((await from('198.51.100.7', person, 'POST', '/api/auth/logout')).status).toBe(200);
    expect((await from('198.51.100.7', person, 'POST', '/api/auth/logout')).status).toBe(401);
    expect(await recordsSince(since, 'sign_out')).toEqual([
      expect.objectContaining({ actorId: person.user.id, actorName: 'Leaving Person', ip: '198.51.100.7' }),
    ]);
  });
});

describe('passwords', () => {
  test('a password change is recorded with the sessions it ended', async () => {
    const person = await joiner('Changing Person');
    // A second device, whose session the change ends.
    await from('127.0.0.1', null, 'POST', '/api/auth/login', { email: person.email, password: 'secret99' });
    const since = await mark();
    const res = await from('198.51.100.8', person, 'PUT', '/api/auth/updatepassword', {
      currentPassword: 'secret99',
      newPassword: 'another99',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await recordsSince(since, 'password_changed')).toEqual([
      expect.objectContaining({
        actorId: person.user.id,
        targetId: null,
        ip: '198.51.100.8',
        details: { sessionsEnded: '1' },
      }),
    ]);
  });

  test('a reset names who reset whose password (never the code), then the one-time sign-in and the new password', async () => {
    const person = await joiner('Forgetful Person');
    const since = await mark();
    const reset = await from<PasswordResetResponse>(
      '198.51.100.9',
      people.manager,
      'POST',
      `/api/auth/users/${person.user.id}/reset-password`,
    );
    expect(reset.status).toBe(200);
    const [record] = await recordsSince(since, 'password_reset');
    expect(record).toMatchObject({
      actorId: people.manager.user.id,
      actorName: people.manager.user.name,
      targetId: person.user.id,
      targetName: 'Forgetful Person',
      ip: '198.51.100.9',
      details: { sessionsEnded: '1' },
    });
    expect(JSON.stringify(await db().select().from(auditRecords))).not.toContain(reset.body.code);

    const withCode = await from<AuthResponse>('198.51.100.10', null, 'POST', '/api/auth/login', {
      email: person.email,
      password: reset.body.code,
    });
    expect(withCode.status).toBe(200);
    const chosen = await from(
      '198.51.100.10',
      { token: withCode.body.token, user: person.user },
      'PUT',
      '/api/auth/choose-password',
      { newPassword: 'chosen999' },
    );
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect(await recordsSince(since, 'sign_in')).toEqual([
      expect.objectContaining({ actorId: person.user.id, details: { method: 'one-time code' } }),
    ]);
    expect(await recordsSince(since, 'password_chosen')).toEqual([
      expect.objectContaining({ actorId: person.user.id, ip: '198.51.100.10', details: { sessionsEnded: '0' } }),
    ]);
  });
});

describe('employees', () => {
  test("an employee's deletion names who deleted whom, the sessions ended and the tasks left unassigned", async () => {
    const person = await joiner('Departing Person');
    const since = await mark();
    const res = await from('198.51.100.11', people.manager, 'DELETE', `/api/auth/users/${person.user.id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await recordsSince(since, 'employee_deactivated')).toEqual([
      expect.objectContaining({
        actorId: people.manager.user.id,
        targetId: person.user.id,
        targetName: 'Departing Person',
        ip: '198.51.100.11',
        details: { sessionsEnded: '1', tasksUnassigned: '0' },
      }),
    ]);
    // A deleted person's attempt is a failure with its reason.
    const attempt = await from('198.51.100.12', null, 'POST', '/api/auth/login', {
      email: person.email,
      password: 'secret99',
    });
    expect(attempt.status).toBe(401);
    expect(await recordsSince(since, 'sign_in_failed')).toEqual([
      expect.objectContaining({
        targetId: person.user.id,
        details: { email: person.email, method: 'password', reason: 'the account was deleted' },
      }),
    ]);
  });

  test('a refused act leaves no record', async () => {
    const since = await mark();
    const refused = await from('198.51.100.13', people.alice, 'DELETE', `/api/auth/users/${people.bob.user.id}`);
    expect(refused.status).toBe(403);
    const resetRefused = await from(
      '198.51.100.13',
      people.alice,
      'POST',
      `/api/auth/users/${people.bob.user.id}/reset-password`,
    );
    expect(resetRefused.status).toBe(403);
    const page = await from<AuditPage>('127.0.0.1', people.admin, 'GET', '/api/audit?limit=200');
    expect(page.body.records.filter((record) => record.id > since)).toEqual([]);
  });
});

describe('who may join', () => {
  test('the sign-up policy and invitations made, revoked and accepted are recorded', async () => {
    const since = await mark();
    const policy = await from('198.51.100.14', people.admin, 'PUT', '/api/workspace/signup-policy', {
      policy: 'domains',
      domains: ['example.org'],
    });
    expect(policy.status).toBe(200);
    const made = await from<CreatedInvitationResponse>(
      '198.51.100.15',
      people.manager,
      'POST',
      '/api/workspace/invitations',
      {
        email: 'invited.one@elsewhere.net',
      },
    );
    expect(made.status).toBe(201);
    const other = await from<CreatedInvitationResponse>(
      '198.51.100.15',
      people.manager,
      'POST',
      '/api/workspace/invitations',
      {},
    );
    const revoked = await from(
      '198.51.100.16',
      people.admin,
      'DELETE',
      `/api/workspace/invitations/${other.body.invitation.id}`,
    );
    expect(revoked.status).toBe(200);
    const joined = await from<AuthResponse>('198.51.100.17', null, 'POST', '/api/auth/register', {
      name: 'Invited One',
      email: 'invited.one@elsewhere.net',
      password: 'secret99',
      invitation: made.body.token,
    });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    await db().delete(workspaceSettings);

    expect(await recordsSince(since, 'signup_policy_changed')).toEqual([
      expect.objectContaining({
        actorId: people.admin.user.id,
        ip: '198.51.100.14',
        details: { policy: 'domains', domains: 'example.org' },
      }),
    ]);
    const created = await recordsSince(since, 'invitation_created');
    expect(
      created.map((record) => [record.actorId, record.ip, record.details.invitation, record.details.email]),
    ).toEqual([
      [people.manager.user.id, '198.51.100.15', made.body.invitation.id, 'invited.one@elsewhere.net'],
      [people.manager.user.id, '198.51.100.15', other.body.invitation.id, undefined],
    ]);
    const withdrawn = await recordsSince(since, 'invitation_revoked');
    expect(withdrawn.map((record) => [record.actorId, record.ip, record.details.invitation])).toEqual([
      [people.admin.user.id, '198.51.100.16', other.body.invitation.id],
    ]);
    expect(await recordsSince(since, 'invitation_accepted')).toEqual([
      expect.objectContaining({
        actorId: joined.body.user.id,
        actorName: 'Invited One',
        ip: '198.51.100.17',
        details: { invitation: made.body.invitation.id, invitedBy: people.manager.user.name },
      }),
    ]);
    // The link's secret is never kept in a record.
    expect(JSON.stringify(await db().select().from(auditRecords))).not.toContain(made.body.token);
  });
});

describe('what is not recorded', () => {
  test('notification preferences and ordinary work leave no record, over REST or sync', async () => {
    const since = await mark();
    const res = await from('198.51.100.18', people.alice, 'PUT', '/api/notifications/preferences', {
      directMessages: false,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const pushed = await push(people.alice, uuidv7(), [
      mutation(1, 'notification.setPreferences', { directMessages: true }),
      mutation(2, 'user.updateDetails', { name: 'Alice Renamed', email: people.alice.user.email }),
    ]);
    expect(pushed.outcomes.map((outcome) => outcome.status)).toEqual(['applied', 'applied']);
    await db().update(users).set({ name: people.alice.user.name }).where(eq(users.id, people.alice.user.id));
    const page = await from<AuditPage>('127.0.0.1', people.admin, 'GET', '/api/audit?limit=200');
    expect(page.body.records.filter((record) => record.id > since)).toEqual([]);
  });
});

describe('the log itself', () => {
  test('an employee and a manager cannot read it', async () => {
    for (const who of [people.alice, people.manager]) {
      const res = await from('127.0.0.1', who, 'GET', '/api/audit');
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'forbidden' });
    }
  });

  test('no route the server has changes or deletes a record', async () => {
    const before = await db().select().from(auditRecords).orderBy(auditRecords.id);
    const target = before[0];
    if (!target) throw new Error('the tests above left records');
    const writes = registeredWrites(server.app.printRoutes({ commonPrefix: false }));
    expect(writes.length).toBeGreaterThan(20);
    // Every writing route, as an admin, aimed at a record (its id for every parameter) with the record's own fields.
    const admin = await from<AuthResponse>('127.0.0.1', null, 'POST', '/api/auth/login', {
      email: 'admin@demo.local',
      password: DEMO_PASSWORD,
    });
    const session = { token: admin.body.token, user: admin.body.user };
    for (const { method, path } of writes) {
      const url = path.replace(/:[A-Za-z]+/g, target.id).replace(/\*$/, target.id);
      await server.app.inject({
        method,
        url,
        headers: bearer(session.token),
        payload: { ...target, action: 'sign_out', actorName: 'Changed', details: {} },
      });
    }
    const after = await db().select().from(auditRecords).orderBy(auditRecords.id);
    // The calls may add records (a sign-out, a failure); none there before has changed or gone.
    expect(after.filter((record) => record.id <= (before.at(-1)?.id ?? ''))).toEqual(before);
  });
});

/** The writing routes (method, path) in Fastify's route listing, each line naming a full path with its methods. */
function registeredWrites(listing: string): { method: 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string }[] {
  const writes: { method: 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string }[] = [];
  for (const line of listing.split('\n')) {
    const match = /(\/\S*) \(([A-Z, ]+)\)/.exec(line);
    if (!match?.[1] || !match[2]) continue;
    for (const method of match[2].split(', '))
      if (method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE')
        writes.push({ method, path: match[1] });
  }
  return writes;
}
