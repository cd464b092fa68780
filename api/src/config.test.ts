import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { loadConfig } from './config';

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'office-config-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const shared = { JWT_SECRET: 'one secret', VAPID_PUBLIC_KEY: 'public', VAPID_PRIVATE_KEY: 'private' };
const url = 'postgres://office:secret@db.internal:5432/office';

test('without DATABASE_URL the workspace stays in the SQLite file, and no secret has to come from the environment', () => {
  expect(loadConfig({}, { dataDir }).databaseUrl).toBeNull();
});

test('DATABASE_URL with the shared secrets selects PostgreSQL', () => {
  expect(loadConfig({ ...shared, DATABASE_URL: url }, { dataDir }).databaseUrl).toBe(url);
  expect(loadConfig({ ...shared, DATABASE_URL: 'postgresql://db/office' }, { dataDir }).databaseUrl).toBe(
    'postgresql://db/office',
  );
});

test('a node with DATABASE_URL but without the shared secrets refuses to start, naming what is missing', () => {
  expect(() => loadConfig({ DATABASE_URL: url }, { dataDir })).toThrow(
    'DATABASE_URL is set, so several nodes may serve this workspace: set JWT_SECRET, VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY in the environment',
  );
  expect(() => loadConfig({ DATABASE_URL: url, JWT_SECRET: 'x', VAPID_PUBLIC_KEY: 'p' }, { dataDir })).toThrow(
    'set VAPID_PRIVATE_KEY in the environment',
  );
});

test('a DATABASE_URL that is not a PostgreSQL URL is refused', () => {
  expect(() => loadConfig({ ...shared, DATABASE_URL: 'mysql://db/office' }, { dataDir })).toThrow(
    'DATABASE_URL must be a PostgreSQL URL',
  );
});

test('who may sign up is open by default; SIGNUP_POLICY and SIGNUP_DOMAINS set the default', () => {
  expect(loadConfig({}, { dataDir }).signupDefaults).toEqual({ policy: 'open', domains: [] });
  expect(loadConfig({ SIGNUP_POLICY: 'invite' }, { dataDir }).signupDefaults).toEqual({
    policy: 'invite',
    domains: [],
  });
  expect(
    loadConfig({ SIGNUP_POLICY: 'domains', SIGNUP_DOMAINS: ' Example.com, @example.org ;example.com' }, { dataDir })
      .signupDefaults,
  ).toEqual({ policy: 'domains', domains: ['example.com', 'example.org'] });
});

test('a sign-up default that cannot be meant refuses to start, saying what it must be', () => {
  expect(() => loadConfig({ SIGNUP_POLICY: 'closed' }, { dataDir })).toThrow(
    'SIGNUP_POLICY must be one of open, domains, invite; not closed',
  );
  expect(() => loadConfig({ SIGNUP_POLICY: 'domains' }, { dataDir })).toThrow(
    'SIGNUP_DOMAINS must list the domains that may sign up, comma-separated (example.com,example.org) when SIGNUP_POLICY=domains',
  );
  expect(() => loadConfig({ SIGNUP_POLICY: 'domains', SIGNUP_DOMAINS: 'not a domain!' }, { dataDir })).toThrow(
    'SIGNUP_DOMAINS must list',
  );
});
