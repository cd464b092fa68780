import { createHash } from 'node:crypto';
import { afterEach, describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  accessTexts,
  errorCatalogue,
  limits,
  type AuthResponse,
  type CreatedInvitationResponse,
  type InvitationListResponse,
  type SignupOptionsResponse,
  type WorkspaceSettingsResponse,
} from '@office/sync-protocol';
import { invitations, users, workspaceSettings } from '../../db/schema';
import { startGoogleJwks, TEST_GOOGLE_CLIENT_ID } from '../../../test/google-jwks';
import { startTestServer, type TestServer } from '../../../test/support';
import { apiClient, expectRefusal, signInDemoPeople, useSeededServer } from '../../../test/api-client';

// Issue 41, point 10: who may join. The sign-up policy (open, listed domains, invited only) is the workspace's one
// settings row, changed by admins; invitation links are made and withdrawn by managers and admins, expire, admit once
// (or a few times), and are spent in the sign-up's own transaction.

const { people, db, call } = useSeededServer();

let emails = 0;
const freshEmail = (domain = 'example.com') => `joiner.${++emails}.${Date.now()}@${domain}`;

const register = (payload: { name?: string; email: string; password?: string; invitation?: string }) =>
  call<AuthResponse>(null, 'POST', '/api/auth/register', { name: 'New Joiner', password: 'secret99', ...payload });

const setPolicy = (who: 'admin' | 'manager' | 'alice', policy: string, domains: string[] = []) =>
  call<WorkspaceSettingsResponse>(people[who], 'PUT', '/api/workspace/signup-policy', { policy, domains });

const invite = (who: 'admin' | 'manager' | 'alice' = 'manager', payload: Record<string, unknown> = {}) =>
  call<CreatedInvitationResponse>(people[who], 'POST', '/api/workspace/invitations', payload);

async function invitationToken(payload: Record<string, unknown> = {}): Promise<CreatedInvitationResponse> {
  const res = await invite('manager', payload);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const userByEmail = async (email: string) => (await db().select().from(users).where(eq(users.email, email)))[0];
const invitationRow = async (id: string) => (await db().select().from(invitations).where(eq(invitations.id, id)))[0];

afterEach(async () => {
  // Every test starts from the demo's default: anyone with the link.
  await db().delete(workspaceSettings);
});

describe('the sign-up setting', () => {
  test('until an admin sets it, the server default applies: open for the demo, and nobody is named as its author', async () => {
    const res = await call<WorkspaceSettingsResponse>(people.manager, 'GET', '/api/workspace/settings');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ signup: { policy: 'open', domains: [], changedAt: null, changedBy: null } });
    const email = freshEmail();
    expect((await register({ email })).status).toBe(201);
  });

  test('an admin changes it: one row holds it, and the settings name the admin', async () => {
    const res = await setPolicy('admin', 'domains', ['Example.org', 'example.net', 'example.org']);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.signup).toMatchObject({
      policy: 'domains',
      domains: ['example.org', 'example.net'],
      changedBy: { id: people.admin.user.id, name: people.admin.user.name },
    });
    expect((await setPolicy('admin', 'invite', ['example.org'])).status).toBe(200);
    const rows = await db().select().from(workspaceSettings);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      signupPolicy: 'invite',
      signupDomains: 'example.org',
      updatedBy: people.admin.user.id,
    });
  });

  test('managers read it but cannot change it; employees neither read nor change it', async () => {
    expectRefusal(await setPolicy('manager', 'invite'), 403, 'forbidden', accessTexts.onlyAdminsChangePolicy);
    expectRefusal(await setPolicy('alice', 'invite'), 403, 'forbidden', accessTexts.onlyAdminsChangePolicy);
    expectRefusal(
      await call(people.alice, 'GET', '/api/workspace/settings'),
      403,
      'forbidden',
      errorCatalogue.forbidden.message,
    );
    expect(await db().select().from(workspaceSettings)).toEqual([]);
    expectRefusal(
      await call(null, 'PUT', '/api/workspace/signup-policy', { policy: 'invite' }),
      401,
      'unauthenticated',
      errorCatalogue.unauthenticated.message,
    );
  });

  test.each([
    ['an unknown policy', { policy: 'closed' }, 'Choose who may join'],
    ['domains without any', { policy: 'domains', domains: [] }, 'List at least one domain, like example.com'],
    [
      'a domain that is no domain',
      { policy: 'domains', domains: ['not a domain'] },
      'Enter domains like example.com, separated by commas',
    ],
    [
      'an email for a domain',
      { policy: 'domains', domains: ['ann@example.com'] },
      'Enter domains like example.com, separated by commas',
    ],
  ])('%s is refused and nothing is stored', async (_what, payload, message) => {
    expectRefusal(
      await call(people.admin, 'PUT', '/api/workspace/signup-policy', payload),
      400,
      'invalid_input',
      message,
    );
    expect(await db().select().from(workspaceSettings)).toEqual([]);
  });
});

describe('sign-up under each policy', () => {
  test('open: anyone with the link signs up', async () => {
    await setPolicy('admin', 'open');
    expect((await register({ email: freshEmail('anywhere.test') })).status).toBe(201);
  });

  test('domains: an email at a listed domain signs up, in any case; any other is refused with the domains named', async () => {
    await setPolicy('admin', 'domains', ['example.org', 'example.net']);
    const inside = freshEmail('EXAMPLE.net');
    expect((await register({ email: inside })).status).toBe(201);
    expect(await userByEmail(inside.toLowerCase())).toBeDefined();

    for (const email of [
      freshEmail('example.com'),
      freshEmail('sub.example.org'),
      freshEmail('example.org.evil.test'),
    ]) {
      expectRefusal(
        await register({ email }),
        403,
        'signup_domain_not_allowed',
        'Sign-up is open only to email addresses at example.org or example.net. Ask your manager or administrator for an invitation.',
      );
      expect(await userByEmail(email)).toBeUndefined();
    }
  });

  test('invite: sign-up without an invitation is refused with a clear message, and no account is made', async () => {
    await setPolicy('admin', 'invite');
    const email = freshEmail();
    expectRefusal(
      await register({ email }),
      403,
      'signup_invitation_required',
      'This workspace is by invitation only. Ask your manager or administrator for an invitation link.',
    );
    expect(await userByEmail(email)).toBeUndefined();
  });

  test('invite: an invitation admits once; the account is an employee that signs in; the link then refuses', async () => {
    await setPolicy('admin', 'invite');
    const { token, invitation } = await invitationToken();
    const email = freshEmail();
    const res = await register({ email, invitation: token });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.user).toMatchObject({ email, role: 'employee' });
    expect((await call(null, 'POST', '/api/auth/login', { email, password: 'secret99' })).status).toBe(200);
    expect(await invitationRow(invitation.id)).toMatchObject({ uses: 1, maxUses: 1 });

    const again = freshEmail();
    expectRefusal(
      await register({ email: again, invitation: token }),
      410,
      'invitation_used',
      'This invitation link has already been used.',
    );
    expect(await userByEmail(again)).toBeUndefined();
  });

  test('an invitation admits whatever the policy: someone outside the listed domains, and under open it is spent', async () => {
    await setPolicy('admin', 'domains', ['example.org']);
    const outside = await invitationToken();
    expect((await register({ email: freshEmail('contractor.test'), invitation: outside.token })).status).toBe(201);
    await setPolicy('admin', 'open');
    const spent = await invitationToken();
    expect((await register({ email: freshEmail(), invitation: spent.token })).status).toBe(201);
    expect(await invitationRow(spent.invitation.id)).toMatchObject({ uses: 1 });
  });

  test('an invitation for an email admits that email (in any case) and refuses another, naming whom it is for', async () => {
    await setPolicy('admin', 'invite');
    const email = freshEmail();
    const { token, invitation } = await invitationToken({ email: `  ${email.toUpperCase()} ` });
    expect(invitation.email).toBe(email);
    const other = freshEmail();
    expectRefusal(
      await register({ email: other, invitation: token }),
      403,
      'invitation_email_mismatch',
      `This invitation is for ${email}. Sign up with that address.`,
    );
    expect(await invitationRow(invitation.id)).toMatchObject({ uses: 0 });
    expect((await register({ email: email.toUpperCase(), invitation: token })).status).toBe(201);
  });

  test('an expired invitation is refused', async () => {
    await setPolicy('admin', 'invite');
    const { token, invitation } = await invitationToken();
    expect(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)).toBe(
      limits.invitationTtlDays * 24 * 60 * 60 * 1000,
    );
    await db()
      .update(invitations)
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .where(eq(invitations.id, invitation.id));
    const email = freshEmail();
    expectRefusal(
      await register({ email, invitation: token }),
      410,
      'invitation_expired',
      'This invitation link has expired. Ask your manager or administrator for a new one.',
    );
    expect(await userByEmail(email)).toBeUndefined();
  });

  test('a withdrawn invitation is refused; only managers and admins withdraw', async () => {
    await setPolicy('admin', 'invite');
    const { token, invitation } = await invitationToken();
    expectRefusal(
      await call(people.alice, 'DELETE', `/api/workspace/invitations/${invitation.id}`),
      403,
      'forbidden',
      errorCatalogue.forbidden.message,
    );
    const revoked = await call(people.admin, 'DELETE', `/api/workspace/invitations/${invitation.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true, message: 'Invitation withdrawn.' });
    expect((await invitationRow(invitation.id))?.revokedAt).not.toBeNull();
    expectRefusal(
      await register({ email: freshEmail(), invitation: token }),
      410,
      'invitation_revoked',
      'This invitation link was withdrawn. Ask your manager or administrator for a new one.',
    );
  });

  test('a token the server never made is refused', async () => {
    await setPolicy('admin', 'invite');
    expectRefusal(
      await register({ email: freshEmail(), invitation: 'A'.repeat(43) }),
      404,
      'invitation_invalid',
      'This invitation link is not valid. Ask your manager or administrator for a new one.',
    );
  });

  test('a sign-up refused for another reason (the email taken) spends nothing of the invitation', async () => {
    const { token, invitation } = await invitationToken();
    expectRefusal(
      await register({ email: 'alice@demo.local', invitation: token }),
      409,
      'email_taken',
      errorCatalogue.email_taken.message,
    );
    expect(await invitationRow(invitation.id)).toMatchObject({ uses: 0 });
    expect((await register({ email: freshEmail(), invitation: token })).status).toBe(201);
  });

  test('an invitation for several people admits that many, then refuses', async () => {
    await setPolicy('admin', 'invite');
    const { token, invitation } = await invitationToken({ maxUses: 2 });
    expect((await register({ email: freshEmail(), invitation: token })).status).toBe(201);
    expect((await register({ email: freshEmail(), invitation: token })).status).toBe(201);
    expect((await register({ email: freshEmail(), invitation: token })).status).toBe(410);
    expect(await invitationRow(invitation.id)).toMatchObject({ uses: 2, maxUses: 2 });
  });

  test('sign-ups racing for the last use of an invitation: one account, the others told it was used', async () => {
    await setPolicy('admin', 'invite');
    for (let round = 0; round < 3; round++) {
      const { token, invitation } = await invitationToken();
      const racers = [freshEmail(), freshEmail(), freshEmail()];
      const answers = await Promise.all(racers.map((email) => register({ email, invitation: token })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 410, 410]);
      expect(await invitationRow(invitation.id)).toMatchObject({ uses: 1 });
      const made = await Promise.all(racers.map(userByEmail));
      expect(made.filter(Boolean)).toHaveLength(1);
    }
  });
});

describe('invitations', () => {
  test('the token is long and random, shown once, and stored only as its SHA-256', async () => {
    const first = await invitationToken();
    const second = await invitationToken();
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.token).not.toBe(second.token);
    const row = await invitationRow(first.invitation.id);
    expect(row?.tokenHash).toBe(createHash('sha256').update(first.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(first.token);
    const list = await call<InvitationListResponse>(people.manager, 'GET', '/api/workspace/invitations');
    expect(JSON.stringify(list.body)).not.toContain(first.token);
  });

  test('managers and admins list them, newest first, with their state and maker; employees cannot', async () => {
    const used = await invitationToken();
    expect((await register({ email: freshEmail(), invitation: used.token })).status).toBe(201);
    const revoked = await invitationToken();
    await call(people.manager, 'DELETE', `/api/workspace/invitations/${revoked.invitation.id}`);
    const open = await invitationToken({ email: freshEmail() });

    for (const who of ['manager', 'admin'] as const) {
      const res = await call<InvitationListResponse>(people[who], 'GET', '/api/workspace/invitations');
      expect(res.status).toBe(200);
      const [newest, middle, oldest] = res.body.invitations;
      expect(newest).toMatchObject({ id: open.invitation.id, status: 'open', email: open.invitation.email });
      expect(middle).toMatchObject({ id: revoked.invitation.id, status: 'revoked' });
      expect(oldest).toMatchObject({
        id: used.invitation.id,
        status: 'used',
        uses: 1,
        createdBy: { id: people.manager.user.id, name: people.manager.user.name },
      });
    }
    expectRefusal(
      await call(people.alice, 'GET', '/api/workspace/invitations'),
      403,
      'forbidden',
      errorCatalogue.forbidden.message,
    );
    expectRefusal(await invite('alice'), 403, 'forbidden', errorCatalogue.forbidden.message);
  });

  test.each([
    ['a malformed email', { email: 'not-an-email' }, 400, 'invalid_input', 'Please enter a valid email address'],
    [
      'one email for several uses',
      { email: 'x@example.com', maxUses: 3 },
      400,
      'invalid_input',
      'An invitation for one email address can be used once',
    ],
    ['too many uses', { maxUses: limits.invitationMaxUses + 1 }, 400, 'invalid_input', undefined],
    ['the email of a member', { email: 'bob@demo.local' }, 409, 'email_taken', errorCatalogue.email_taken.message],
  ] as const)('%s is refused', async (_what, payload, status, code, message) => {
    const before = await db().select().from(invitations);
    const res = await invite('admin', payload);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject(message === undefined ? { code } : { code, message });
    expect(await db().select().from(invitations)).toHaveLength(before.length);
  });

  test('withdrawing an unknown invitation is 404', async () => {
    expectRefusal(
      await call(people.manager, 'DELETE', '/api/workspace/invitations/01890000-0000-7000-8000-000000000000'),
      404,
      'not_found',
      'Invitation not found.',
    );
  });
});

describe('GET /api/auth/signup-options', () => {
  const options = (query = '') => call<SignupOptionsResponse>(null, 'GET', `/api/auth/signup-options${query}`);

  test('anyone reads the policy; listed domains only while they decide', async () => {
    expect((await options()).body).toEqual({ policy: 'open', domains: [], invitation: null, invitationProblem: null });
    await setPolicy('admin', 'invite', ['example.org']);
    expect((await options()).body).toMatchObject({ policy: 'invite', domains: [] });
    await setPolicy('admin', 'domains', ['example.org']);
    expect((await options()).body).toMatchObject({ policy: 'domains', domains: ['example.org'] });
  });

  test('with an invitation: whom it is for and until when; a spent or withdrawn one: the reason', async () => {
    const email = freshEmail();
    const named = await invitationToken({ email });
    expect((await options(`?invitation=${named.token}`)).body).toMatchObject({
      invitation: { email, expiresAt: named.invitation.expiresAt },
      invitationProblem: null,
    });
    await call(people.manager, 'DELETE', `/api/workspace/invitations/${named.invitation.id}`);
    expect((await options(`?invitation=${named.token}`)).body).toMatchObject({
      invitation: null,
      invitationProblem: { code: 'invitation_revoked', message: errorCatalogue.invitation_revoked.message },
    });
    expect((await options('?invitation=nonsense')).body.invitationProblem?.code).toBe('invitation_invalid');
  });
});

describe('with a server default and its limits', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((started) => started.close()));
  });

  test('SIGNUP_POLICY=invite closes a fresh workspace until an admin opens it', async () => {
    const started = await startTestServer({ config: { signupDefaults: { policy: 'invite', domains: [] } } });
    servers.push(started);
    const client = apiClient(() => started.app);
    const body = { name: 'Ivy', email: 'ivy@example.com', password: 'secret99' };
    expectRefusal(
      await client.call(null, 'POST', '/api/auth/register', body),
      403,
      'signup_invitation_required',
      errorCatalogue.signup_invitation_required.message,
    );
    const { admin } = await signInDemoPeople(started.app);
    expect((await client.call(admin, 'PUT', '/api/workspace/signup-policy', { policy: 'open' })).status).toBe(200);
    expect((await client.call(null, 'POST', '/api/auth/register', body)).status).toBe(201);
  });

  test('a Google sign-in that would make an account follows the policy; an existing account still signs in', async () => {
    const google = await startGoogleJwks();
    const started = await startTestServer({
      config: {
        googleClientId: TEST_GOOGLE_CLIENT_ID,
        googleJwksUrl: google.url,
        signupDefaults: { policy: 'domains', domains: ['example.org'] },
      },
    });
    servers.push(started);
    try {
      const client = apiClient(() => started.app);
      const googleLogin = async (email: string) =>
        client.call<AuthResponse>(null, 'POST', '/api/auth/google', {
          tokenId: await google.signIdToken({ sub: `google-${email}`, email, name: 'Gil Google' }),
        });
      expectRefusal(
        await googleLogin('gil@gmail.com'),
        403,
        'signup_domain_not_allowed',
        accessTexts.domainRefused(['example.org']),
      );
      expect((await started.app.db.select().from(users).where(eq(users.email, 'gil@gmail.com'))).length).toBe(0);
      expect((await googleLogin('gil@example.org')).status).toBe(200);
      const { admin } = await signInDemoPeople(started.app);
      await client.call(admin, 'PUT', '/api/workspace/signup-policy', { policy: 'invite' });
      expectRefusal(
        await googleLogin('new@example.org'),
        403,
        'signup_invitation_required',
        errorCatalogue.signup_invitation_required.message,
      );
      // Alice's account exists: Google signs her in whatever the policy.
      expect((await googleLogin('alice@demo.local')).status).toBe(200);
    } finally {
      await google.close();
    }
  });

  test('the sign-up routes count against the address like the other public auth routes', async () => {
    const started = await startTestServer({ config: { rateLimitPerIp: 3 } });
    servers.push(started);
    const answers = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      answers.push(
        await started.app.inject({ method: 'GET', url: '/api/auth/signup-options', remoteAddress: '203.0.113.9' }),
      );
    }
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429]);
    const register = await started.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: '203.0.113.9',
      payload: { name: 'Rae', email: 'rae@example.com', password: 'secret99' },
    });
    expect(register.statusCode).toBe(429);
  });
});
