import { and, eq, lt, ne, sql } from 'drizzle-orm';
import { limits, uuidv7 } from '@office/sync-protocol';
import type { Actor } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { KeptRows } from '../../db/kept-rows';
import { preparedSelect } from '../../db/prepared';
import { sessions, users } from '../../db/schema';
import { transaction } from '../../db/transaction';
import { personNamed, recordAudit, type AuditEntry } from '../audit/audit-trail';

/** A session as a token names it, with who acts through it. */
export interface LiveSession {
  id: string;
  actor: Actor;
  /** Started with a one-time code: until a new password is chosen, only that choice and signing out are allowed. */
  passwordChangeRequired: boolean;
}

/**
 * Starts a session for a sign-in, with the sign-in's audit record in the same transaction. The user's expired sessions
 * go at the same time, so the table holds each person's live devices plus those that expired since their last sign-in.
 */
export async function startSession(
  db: Db,
  userId: string,
  signIn: AuditEntry | null,
  now = new Date(),
): Promise<{ id: string; expiresAt: Date }> {
  const id = uuidv7(now.getTime());
  const expiresAt = new Date(now.getTime() + limits.tokenTtlSeconds * 1000);
  await transaction(db, async (tx) => {
    await tx.delete(sessions).where(and(eq(sessions.userId, userId), lt(sessions.expiresAt, now.toISOString())));
    await tx.insert(sessions).values({ id, userId, createdAt: now.toISOString(), expiresAt: expiresAt.toISOString() });
    if (signIn) await recordAudit(tx, signIn, now);
  });
  return { id, expiresAt };
}

/** Live sessions, about one per signed-in device: a session ends only by the three functions below, which drop it. */
const liveSessions = new KeptRows<{ session: LiveSession; expiresAtMs: number }>(10_000);

/** The live session `id` of `userId`, or undefined once it has ended, expired or its account was deactivated. */
export async function findLiveSession(
  db: Db,
  id: string,
  userId: string,
  now = new Date(),
): Promise<LiveSession | undefined> {
  // Every authenticated request needs its session: a kept one saves a read of two tables, about 7 µs of a chat POST's 100.
  const nowMs = now.getTime();
  const known = liveSessions.get(db, id, nowMs);
  if (known) return known.session.actor.id === userId && known.expiresAtMs > nowMs ? known.session : undefined;
  // Built once per database, and only the columns that decide whether it is live and who acts.
  const [row] = await preparedSelect(
    db,
    'sessions.live',
    {
      expiresAt: sessions.expiresAt,
      role: users.role,
      deactivatedAt: users.deactivatedAt,
      mustChangePassword: users.mustChangePassword,
    },
    (handle, fields) =>
      handle
        .select(fields)
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(and(eq(sessions.id, sql.placeholder('id')), eq(sessions.userId, sql.placeholder('userId')))),
  )({ id, userId });
  if (!row || row.deactivatedAt || row.expiresAt <= now.toISOString()) {
    liveSessions.forgetKey(db, id);
    return undefined;
  }
  const session = { id, actor: { id: userId, role: row.role }, passwordChangeRequired: row.mustChangePassword };
  liveSessions.set(db, id, { session, expiresAtMs: Date.parse(row.expiresAt) }, nowMs);
  return session;
}

/** Logout: this session ends, recorded as a sign-out from `ip` (once, however many sign-outs of it race). */
export const endSession = (db: Db, session: { id: string; userId: string }, ip: string | null): Promise<void> =>
  transaction(db, async (tx) => {
    const ended = await tx.delete(sessions).where(eq(sessions.id, session.id)).returning({ id: sessions.id });
    liveSessions.forgetKey(db, session.id);
    if (ended.length) await recordAudit(tx, { action: 'sign_out', actor: await personNamed(tx, session.userId), ip });
  });

/** How many of the sessions an act ended were live (not merely expired and not yet cleared): its record says so. */
const liveAmong = (ended: { expiresAt: string }[], now: Date): number =>
  ended.filter(({ expiresAt }) => expiresAt > now.toISOString()).length;

/**
 * A password change: every session of the user ends but the one that made it, which is read again (a restriction
 * to choosing a password has just lifted). Resolves with how many live sessions ended.
 */
export const endOtherSessions = async (tx: Tx, userId: string, keep: string, now = new Date()): Promise<number> => {
  const ended = await tx
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), ne(sessions.id, keep)))
    .returning({ expiresAt: sessions.expiresAt });
  liveSessions.forget(tx, (_id, { session }) => session.actor.id === userId);
  return liveAmong(ended, now);
};

/** Deactivation and a password reset: every session of the user ends. Resolves with how many live sessions ended. */
export const endAllSessions = async (tx: Tx, userId: string, now = new Date()): Promise<number> => {
  const ended = await tx
    .delete(sessions)
    .where(eq(sessions.userId, userId))
    .returning({ expiresAt: sessions.expiresAt });
  liveSessions.forget(tx, (_id, { session }) => session.actor.id === userId);
  return liveAmong(ended, now);
};

/** When a session started: its id is a UUIDv7 made at that millisecond. */
const sessionStartMs = (id: string): number => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);

/**
 * Whether a session that is gone ended because its person's password was reset since it started: its device is told
 * so (and forgets the old password's offline verifier) rather than merely signed out. Read only for refused tokens.
 */
export async function endedByPasswordReset(db: Db, userId: string, sessionId: string): Promise<boolean> {
  const started = sessionStartMs(sessionId);
  if (!Number.isFinite(started)) return false;
  const [row] = await db.select({ resetAt: users.passwordResetAt }).from(users).where(eq(users.id, userId));
  return row?.resetAt != null && started < Date.parse(row.resetAt);
}
