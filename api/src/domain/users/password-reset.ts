import { randomInt } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import {
  accessTexts,
  canResetPassword,
  formatResetCode,
  idSchema,
  limits,
  normalizeResetCode,
  resetCodeAlphabetSize,
  type Actor,
  type ChoosePasswordRequest,
} from '@office/sync-protocol';
import type { Db } from '../../db/client';
import { users } from '../../db/schema';
import { transaction } from '../../db/transaction';
import { recordAct } from '../audit/audit-trail';
import { defineCommand, runCommand, type EffectsFlusher } from '../commands';
import { DomainError } from '../errors';
import { setPasswordCommand } from './commands';
import { hashPassword, verifyPassword } from './passwords';
import { endAllSessions } from './sessions';
import type { UserRow } from './serialize';

const HOUR_MS = 60 * 60 * 1000;

/** A new one-time code: 12 characters drawn uniformly by the platform's CSPRNG (about 59 bits), in groups of 4. */
const newResetCode = (): string =>
  formatResetCode(Array.from({ length: limits.resetCodeLength }, () => randomInt(resetCodeAlphabetSize)));

/** When a reset made at `resetAt` stops signing in. */
const codeExpiry = (resetAt: string): Date => new Date(Date.parse(resetAt) + limits.resetCodeTtlHours * HOUR_MS);

/** Why `actor` may not reset `target`'s password, or null when they may. */
function resetRefusal(actor: Actor, target: Pick<UserRow, 'id' | 'role'>): DomainError | null {
  if (actor.id === target.id) return new DomainError('forbidden', accessTexts.cannotResetOwn);
  if (canResetPassword(actor, target)) return null;
  return new DomainError('forbidden', actor.role === 'manager' ? accessTexts.managersResetEmployees : undefined);
}

async function loadTarget(db: Db, id: string): Promise<UserRow> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.id, id), isNull(users.deactivatedAt)));
  if (!row) throw new DomainError('user_not_found');
  return row;
}

/**
 * `user.resetPassword`: the password becomes the one-time code (hashed before the transaction), to be changed at the
 * next sign-in; every session of the person ends. Nothing the team sees changes, so nothing goes to the change log;
 * the audit trail records who reset whose password (never the code) and how many sessions ended.
 */
export const resetPasswordCommand = defineCommand({
  name: 'user.resetPassword',
  args: z.object({ id: idSchema, codeHash: z.string().min(1) }),
  async run(ctx, { id, codeHash }) {
    const [target] = await ctx.tx
      .select()
      .from(users)
      .where(and(eq(users.id, id), isNull(users.deactivatedAt)));
    if (!target) throw new DomainError('user_not_found');
    const refusal = resetRefusal(ctx.actor, target);
    if (refusal) throw refusal;
    const resetAt = ctx.now.toISOString();
    await ctx.tx
      .update(users)
      .set({ passwordHash: codeHash, mustChangePassword: true, passwordResetAt: resetAt, passwordResetUsedAt: null })
      .where(eq(users.id, id));
    const ended = await endAllSessions(ctx.tx, id, ctx.now);
    await recordAct(ctx, {
      action: 'password_reset',
      target: { id, name: target.name },
      details: { sessionsEnded: String(ended) },
    });
    return { id, name: target.name, expiresAt: codeExpiry(resetAt).toISOString() };
  },
});

/**
 * POST /api/auth/users/{id}/reset-password: who may reset is checked before the code is hashed (an argon2 hash is
 * not spent on a refusal) and again in the command, which decides.
 */
export async function resetPassword(
  db: Db,
  flush: EffectsFlusher,
  actor: Actor,
  id: string,
  ip: string,
): Promise<{ code: string; name: string; expiresAt: string }> {
  const refusal = resetRefusal(actor, await loadTarget(db, id));
  if (refusal) throw refusal;
  const code = newResetCode();
  const args = { id, codeHash: await hashPassword(code) };
  const result = await runCommand(db, flush, actor, resetPasswordCommand, args, ip);
  return { code, name: result.name, expiresAt: result.expiresAt };
}

/** What a sign-in tries against the stored hash: a pending one-time code as people type it, or the password. */
export const passwordCandidate = (row: UserRow | undefined, typed: string): string =>
  row?.mustChangePassword ? (normalizeResetCode(typed) ?? typed) : typed;

/**
 * After the right one-time code: it signs in once, within its time. Spending it is conditional on it still being
 * the pending code, so two sign-ins racing with it get one session between them.
 */
export async function spendResetCode(db: Db, row: UserRow, now = new Date()): Promise<void> {
  if (row.passwordResetUsedAt !== null) throw new DomainError('reset_code_used');
  if (row.passwordResetAt === null || codeExpiry(row.passwordResetAt) <= now)
    throw new DomainError('reset_code_expired');
  const spent = await transaction(db, (tx) =>
    tx
      .update(users)
      .set({ passwordResetUsedAt: now.toISOString() })
      .where(
        and(
          eq(users.id, row.id),
          eq(users.mustChangePassword, true),
          isNull(users.passwordResetUsedAt),
          row.passwordHash === null ? isNull(users.passwordHash) : eq(users.passwordHash, row.passwordHash),
        ),
      )
      .returning({ id: users.id }),
  );
  if (!spent.length) throw new DomainError('reset_code_used');
}

/**
 * PUT /api/auth/choose-password: the person who signed in with a one-time code chooses their password. The session
 * that asks goes on, no longer restricted; any other ends (there is none but a racing sign-in's).
 */
export async function choosePassword(
  db: Db,
  flush: EffectsFlusher,
  actor: Actor,
  sessionId: string,
  { newPassword }: ChoosePasswordRequest,
  ip: string,
): Promise<void> {
  const row = await loadTarget(db, actor.id);
  if (!row.mustChangePassword) throw new DomainError('invalid_input', accessTexts.noPendingChange);
  if (row.passwordHash !== null && (await verifyPassword(row.passwordHash, passwordCandidate(row, newPassword)))) {
    throw new DomainError('invalid_input', accessTexts.sameAsCode);
  }
  const args = {
    passwordHash: await hashPassword(newPassword),
    verifiedHash: row.passwordHash,
    keepSessionId: sessionId,
  };
  await runCommand(db, flush, actor, setPasswordCommand, args, ip);
}
