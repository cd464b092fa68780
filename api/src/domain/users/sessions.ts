import { and, eq, lt, ne, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import { limits, uuidv7 } from '@office/sync-protocol';
import type { Actor } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { dialect } from '../../db/dialect';
import { preparedSelect } from '../../db/prepared';
import { sessions, users } from '../../db/schema';
import { transaction } from '../../db/transaction';

/** A session as a token names it, with who acts through it. */
export interface LiveSession {
  id: string;
  actor: Actor;
}

/**
 * Starts a session for a sign-in. The user's expired sessions go at the same time, so the table holds
 * each person's live devices plus those that expired since their last sign-in.
 */
export async function startSession(db: Db, userId: string, now = new Date()): Promise<{ id: string; expiresAt: Date }> {
  const id = uuidv7(now.getTime());
  const expiresAt = new Date(now.getTime() + limits.tokenTtlSeconds * 1000);
  await transaction(db, async (tx) => {
    await tx.delete(sessions).where(and(eq(sessions.userId, userId), lt(sessions.expiresAt, now.toISOString())));
    await tx.insert(sessions).values({ id, userId, createdAt: now.toISOString(), expiresAt: expiresAt.toISOString() });
  });
  return { id, expiresAt };
}

/** Live sessions kept in memory: about one per signed-in device. */
const LIVE_SESSIONS_KEPT = 10_000;
/** How long a kept session is trusted without a read: what bounds a change made to the file behind the server's back. */
export const LIVE_SESSION_KEPT_MS = 60_000;

interface KeptSession {
  session: LiveSession;
  expiresAtMs: number;
  readAtMs: number;
}

/**
 * Sessions read live, per SQLite database. One process owns that file, and a session ends only through
 * `endSession`, `endOtherSessions` and `endAllSessions` (deactivation among them), which drop what they end from
 * here in the statement that deletes it: the next request reads the table again and is refused. With PostgreSQL
 * another node may end a session, so every request reads it there.
 */
const keptSessions = new WeakMap<object, LRUCache<string, KeptSession>>();

function keptSessionsOf(db: Db): LRUCache<string, KeptSession> | null {
  if (dialect === 'postgres') return null;
  let kept = keptSessions.get(db.$client);
  if (!kept) {
    kept = new LRUCache({ max: LIVE_SESSIONS_KEPT });
    keptSessions.set(db.$client, kept);
  }
  return kept;
}

function forgetSessionsOf(db: Db, userId: string, keep?: string): void {
  const kept = keptSessionsOf(db);
  if (!kept) return;
  const ended = [...kept.entries()].filter(([id, { session }]) => session.actor.id === userId && id !== keep);
  for (const [id] of ended) kept.delete(id);
}

/** The live session `id` of `userId`, or undefined once it has ended, expired or its account was deactivated. */
export async function findLiveSession(
  db: Db,
  id: string,
  userId: string,
  now = new Date(),
): Promise<LiveSession | undefined> {
  // Every authenticated request needs its session: a kept one saves a read of two tables, about 7 µs of a chat POST's 100.
  const kept = keptSessionsOf(db);
  const known = kept?.get(id);
  const nowMs = now.getTime();
  if (known && nowMs - known.readAtMs < LIVE_SESSION_KEPT_MS) {
    return known.session.actor.id === userId && known.expiresAtMs > nowMs ? known.session : undefined;
  }
  // Built once per database, and only the columns that decide whether it is live and who acts.
  const [row] = await preparedSelect(
    db,
    'sessions.live',
    { expiresAt: sessions.expiresAt, role: users.role, deactivatedAt: users.deactivatedAt },
    (handle, fields) =>
      handle
        .select(fields)
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(and(eq(sessions.id, sql.placeholder('id')), eq(sessions.userId, sql.placeholder('userId')))),
  )({ id, userId });
  if (!row || row.deactivatedAt || row.expiresAt <= now.toISOString()) {
    kept?.delete(id);
    return undefined;
  }
  const session = { id, actor: { id: userId, role: row.role } };
  kept?.set(id, { session, expiresAtMs: Date.parse(row.expiresAt), readAtMs: nowMs });
  return session;
}

/** Logout: this session ends. */
export const endSession = (db: Db, id: string): Promise<void> =>
  transaction(db, async (tx) => {
    await tx.delete(sessions).where(eq(sessions.id, id));
    keptSessionsOf(db)?.delete(id);
  });

/** A password change: every session of the user ends but the one that made it. */
export const endOtherSessions = async (tx: Tx, userId: string, keep: string): Promise<void> => {
  await tx.delete(sessions).where(and(eq(sessions.userId, userId), ne(sessions.id, keep)));
  forgetSessionsOf(tx, userId, keep);
};

/** Deactivation: every session of the user ends. */
export const endAllSessions = async (tx: Tx, userId: string): Promise<void> => {
  await tx.delete(sessions).where(eq(sessions.userId, userId));
  forgetSessionsOf(tx, userId);
};
