import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import {
  historyWindow,
  parseDomainList,
  signupPolicies,
  signupSettingsSchema,
  type SignupSettings,
} from '@office/sync-protocol';
import { makePrivateDir, privateFileMode } from './private-files';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  jwtSecret: string;
  seedDemo: boolean;
  googleClientId: string | null;
  googleJwksUrl: string;
  /** Where the built PWA lives; null serves the API only (tests). */
  staticDir: string | null;
  logLevel: string;
  /** API requests per minute of one signed-in user; 0 turns the limit off. */
  rateLimitPerUser: number;
  /** API requests per minute without a valid token, per IP address; 0 turns the limit off. */
  rateLimitPerIp: number;
  /** PUSH_ALLOW_LOOPBACK=1: web push may go to a loopback endpoint (the tests' own receiver). Off by default. */
  pushAllowLoopback: boolean;
  /** How often the morning digest job looks for people whose 08:00 has come, in seconds; 0 turns it off. */
  digestCheckSeconds: number;
  /** DATABASE_URL: the PostgreSQL every node shares; null keeps the SQLite file in DATA_DIR. */
  databaseUrl: string | null;
  /**
   * TRUST_PROXY: whose X-Forwarded-For names a request's address (its limits and sign-in throttle count that
   * address): the balancers' addresses or ranges, or how many hops of balancers there are. False reads no header.
   */
  trustProxy: false | number | string[];
  /**
   * What devices keep of the history (issue 46): `historyWindow` unless HISTORY_TEAM_CHAT_MESSAGES,
   * HISTORY_DIRECT_MESSAGES, HISTORY_COMPLETED_TASK_DAYS or HISTORY_NOTIFICATIONS set a window (tests lower it).
   */
  historyWindow: HistoryWindowSizes;
  /** METRICS_TOKEN: the bearer token `GET /metrics` asks for; null serves no metrics and counts nothing. */
  metricsToken: string | null;
  /** Scheduled backups: BACKUP_DIR (null: none), every BACKUP_EVERY_HOURS hours, the newest BACKUP_KEEP kept. */
  backup: { dir: string | null; everyHours: number; keep: number };
  /** AUDIT_KEEP_DAYS: audit records older than this are dropped, once a day. */
  auditKeepDays: number;
  /**
   * SIGNUP_POLICY (open, domains or invite) and SIGNUP_DOMAINS (a comma list): who may create an account until an
   * admin changes it in Employee Management's Settings, which then wins. Open by default, as the demo needs.
   */
  signupDefaults: SignupSettings;
}

/** The sizes of the window of history devices keep. */
export type HistoryWindowSizes = { -readonly [K in keyof typeof historyWindow]: number };

/** A non-negative whole number from the environment, or the default when unset. */
function countFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`${name} must be a whole number (0 turns it off), got ${raw}`);
  return value;
}

/** A window size from the environment: a whole number of at least `min`, or the default when unset. */
function windowSizeFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be a whole number of at least ${min}, got ${raw}`);
  return value;
}

const historyWindowFrom = (env: NodeJS.ProcessEnv): HistoryWindowSizes => ({
  teamChatMessages: windowSizeFrom(env, 'HISTORY_TEAM_CHAT_MESSAGES', historyWindow.teamChatMessages, 1),
  directMessages: windowSizeFrom(env, 'HISTORY_DIRECT_MESSAGES', historyWindow.directMessages, 1),
  completedTaskDays: windowSizeFrom(env, 'HISTORY_COMPLETED_TASK_DAYS', historyWindow.completedTaskDays, 0),
  notifications: windowSizeFrom(env, 'HISTORY_NOTIFICATIONS', historyWindow.notifications, 1),
});

const DEFAULT_GOOGLE_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs';

/** Reads the JWT secret from the environment, or from DATA_DIR, creating it on first start. */
function loadJwtSecret(dataDir: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: privateFileMode });
  return secret;
}

/** What every node of one workspace must share: generated per node, they would differ between nodes. */
const SHARED_SECRETS = ['JWT_SECRET', 'VAPID_PUBLIC_KEY', 'VAPID_PRIVATE_KEY'] as const;

/** DATABASE_URL, checked: a PostgreSQL URL, with the secrets every node shares in the environment too. */
function databaseUrlFrom(env: NodeJS.ProcessEnv): string | null {
  const url = env.DATABASE_URL;
  if (!url) return null;
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new Error('DATABASE_URL must be a PostgreSQL URL (postgres://user:password@host:5432/database).');
  const missing = SHARED_SECRETS.filter((name) => !env[name]);
  if (missing.length)
    throw new Error(
      `DATABASE_URL is set, so several nodes may serve this workspace: set ${missing.join(', ')} in the ` +
        'environment, the same on every node (generated per node they would differ).',
    );
  return url;
}

/** The names proxy-addr (Fastify's trustProxy) gives to whole families of private addresses. */
const ADDRESS_FAMILIES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: unset reads no X-Forwarded-For; a whole number trusts that many hops of proxies; otherwise a comma
 * list of the proxies' addresses and ranges (10.0.0.0/8) or of the families loopback, linklocal and uniquelocal.
 * "true" (trust any sender) is refused: whoever reaches the node directly could then pick the address they count
 * against.
 */
function trustProxyFrom(raw: string | undefined): Config['trustProxy'] {
  if (raw === undefined || raw.trim() === '') return false;
  if (/^\d+$/.test(raw.trim())) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  const invalid = entries.filter((entry) => !ADDRESS_FAMILIES.has(entry) && !isAddressOrRange(entry));
  if (invalid.length)
    throw new Error(
      `TRUST_PROXY must be the number of proxy hops or a comma list of the proxies' addresses or ranges ` +
        `(e.g. 10.0.0.0/8 or loopback); not ${invalid.join(', ')}`,
    );
  return entries;
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

/** The shortest METRICS_TOKEN taken: a guessable token would publish the server's figures to anyone. */
const METRICS_TOKEN_MIN_LENGTH = 16;

function metricsTokenFrom(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (raw.length < METRICS_TOKEN_MIN_LENGTH)
    throw new Error(
      `METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN_LENGTH} characters (e.g. openssl rand -hex 24), got ${raw.length}`,
    );
  return raw;
}

/** SIGNUP_POLICY and SIGNUP_DOMAINS, checked: a typo must not open (or close) the workspace by surprise. */
function signupDefaultsFrom(env: NodeJS.ProcessEnv): SignupSettings {
  const policy = env.SIGNUP_POLICY?.trim() || 'open';
  const parsed = signupSettingsSchema.safeParse({ policy, domains: parseDomainList(env.SIGNUP_DOMAINS ?? '') });
  if (parsed.success) return parsed.data;
  const problem = parsed.error.issues[0];
  if (problem?.path[0] === 'policy')
    throw new Error(`SIGNUP_POLICY must be one of ${signupPolicies.join(', ')}; not ${policy}`);
  throw new Error(
    `SIGNUP_DOMAINS must list the domains that may sign up, comma-separated (example.com,example.org)` +
      (policy === 'domains' ? ' when SIGNUP_POLICY=domains' : '') +
      `: ${problem?.message ?? 'invalid'}`,
  );
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const databaseUrl = databaseUrlFrom(env);
  const dataDir = resolve(overrides.dataDir ?? env.DATA_DIR ?? './data');
  makePrivateDir(dataDir);
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got ${env.PORT}`);
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    jwtSecret: loadJwtSecret(dataDir, env.JWT_SECRET),
    seedDemo: env.SEED_DEMO !== '0',
    googleClientId: env.GOOGLE_CLIENT_ID || null,
    googleJwksUrl: env.GOOGLE_JWKS_URL || DEFAULT_GOOGLE_JWKS_URL,
    staticDir: null,
    logLevel: env.LOG_LEVEL ?? 'info',
    rateLimitPerUser: countFrom(env, 'RATE_LIMIT_PER_USER', 200),
    rateLimitPerIp: countFrom(env, 'RATE_LIMIT_PER_IP', 100),
    pushAllowLoopback: env.PUSH_ALLOW_LOOPBACK === '1',
    digestCheckSeconds: countFrom(env, 'DIGEST_CHECK_SECONDS', 60),
    databaseUrl,
    trustProxy: trustProxyFrom(env.TRUST_PROXY),
    historyWindow: historyWindowFrom(env),
    metricsToken: metricsTokenFrom(env.METRICS_TOKEN),
    backup: {
      dir: env.BACKUP_DIR ? resolve(env.BACKUP_DIR) : null,
      everyHours: countFrom(env, 'BACKUP_EVERY_HOURS', 24),
      keep: countFrom(env, 'BACKUP_KEEP', 7),
    },
    auditKeepDays: countFrom(env, 'AUDIT_KEEP_DAYS', 365),
    signupDefaults: signupDefaultsFrom(env),
    ...overrides,
  };
}
