import { createHash, randomBytes } from 'node:crypto';
import { and, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import {
  accessTexts,
  canManageInvitations,
  createInvitationRequestSchema,
  idSchema,
  limits,
  uuidv7,
  type Invitation,
  type InvitationStatus,
} from '@office/sync-protocol';
import { z } from 'zod';
import type { Db, Tx } from '../../db/client';
import { invitations, users } from '../../db/schema';
import { personNamed, recordAct } from '../audit/audit-trail';
import { defineCommand } from '../commands';
import { DomainError } from '../errors';

export type InvitationRow = typeof invitations.$inferSelect;

/** How many invitations the Settings list shows, newest first. */
export const invitationsListed = 100;

const DAY_MS = 24 * 60 * 60 * 1000;

/** 256 random bits, URL-safe: the token of one invitation link. */
const newToken = (): string => randomBytes(32).toString('base64url');

/** Tokens are stored only as this: a database that leaks holds no link that admits anyone. */
export const hashInvitationToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export function invitationStatus(row: InvitationRow, now: Date): InvitationStatus {
  if (row.revokedAt !== null) return 'revoked';
  if (row.uses >= row.maxUses) return 'used';
  if (row.expiresAt <= now.toISOString()) return 'expired';
  return 'open';
}

const toInvitation = (row: InvitationRow, createdBy: Invitation['createdBy'], now: Date): Invitation => ({
  id: row.id,
  email: row.email,
  createdBy,
  createdAt: row.createdAt,
  expiresAt: row.expiresAt,
  maxUses: row.maxUses,
  uses: row.uses,
  revokedAt: row.revokedAt,
  status: invitationStatus(row, now),
});

/** What an invitation's records say of it (never its token): which one, for whom, how many uses, until when. */
export const invitationDetails = (row: InvitationRow): Record<string, string> => ({
  invitation: row.id,
  ...(row.email === null ? {} : { email: row.email }),
  maxUses: String(row.maxUses),
  expiresAt: row.expiresAt,
});

/** GET /api/workspace/invitations: the newest invitations with who made them. */
export async function listInvitations(db: Db, now = new Date()): Promise<Invitation[]> {
  const rows = await db
    .select({ invitation: invitations, creatorName: users.name })
    .from(invitations)
    .leftJoin(users, eq(users.id, invitations.createdBy))
    .orderBy(desc(invitations.createdAt), desc(invitations.id))
    .limit(invitationsListed);
  return rows.map(({ invitation, creatorName }) =>
    toInvitation(invitation, creatorName === null ? null : { id: invitation.createdBy, name: creatorName }, now),
  );
}

/**
 * `invitation.create`: POST /api/workspace/invitations. Managers and admins; the token is in the answer only, to be
 * shown once as a link.
 */
export const createInvitationCommand = defineCommand({
  name: 'invitation.create',
  args: createInvitationRequestSchema,
  async run(ctx, args) {
    if (!canManageInvitations(ctx.actor)) throw new DomainError('forbidden');
    if (args.email !== null) {
      const [member] = await ctx.tx.select({ id: users.id }).from(users).where(eq(users.email, args.email));
      if (member) throw new DomainError('email_taken');
    }
    const token = newToken();
    const [row] = await ctx.tx
      .insert(invitations)
      .values({
        id: uuidv7(ctx.now.getTime()),
        tokenHash: hashInvitationToken(token),
        email: args.email,
        createdBy: ctx.actor.id,
        createdAt: ctx.now.toISOString(),
        expiresAt: new Date(ctx.now.getTime() + limits.invitationTtlDays * DAY_MS).toISOString(),
        maxUses: args.maxUses,
      })
      .returning();
    if (!row) throw new Error('the new invitation was not returned');
    await recordAct(ctx, { action: 'invitation_created', details: invitationDetails(row) });
    const creator = await personNamed(ctx.tx, ctx.actor.id);
    return { invitation: toInvitation(row, creator, ctx.now), token };
  },
});

/** `invitation.revoke`: DELETE /api/workspace/invitations/{id}. Its link admits nobody from now on. */
export const revokeInvitationCommand = defineCommand({
  name: 'invitation.revoke',
  args: z.object({ id: idSchema }),
  async run(ctx, { id }) {
    if (!canManageInvitations(ctx.actor)) throw new DomainError('forbidden');
    const [row] = await ctx.tx
      .update(invitations)
      .set({ revokedAt: ctx.now.toISOString() })
      .where(and(eq(invitations.id, id), isNull(invitations.revokedAt)))
      .returning();
    if (row) {
      await recordAct(ctx, { action: 'invitation_revoked', details: invitationDetails(row) });
      return { id: row.id };
    }
    const [known] = await ctx.tx.select({ id: invitations.id }).from(invitations).where(eq(invitations.id, id));
    if (!known) throw new DomainError('not_found', 'Invitation not found.');
    return { id };
  },
});

/** The invitation behind a token, if it still admits `email` (any email when null): otherwise why not. */
async function admittingInvitation(
  tx: Db | Tx,
  token: string,
  email: string | null,
  now: Date,
): Promise<InvitationRow> {
  const [row] = await tx
    .select()
    .from(invitations)
    .where(eq(invitations.tokenHash, hashInvitationToken(token)));
  if (!row) throw new DomainError('invitation_invalid');
  const status = invitationStatus(row, now);
  if (status === 'revoked') throw new DomainError('invitation_revoked');
  if (status === 'used') throw new DomainError('invitation_used');
  if (status === 'expired') throw new DomainError('invitation_expired');
  if (email !== null && row.email !== null && row.email !== email) {
    throw new DomainError('invitation_email_mismatch', accessTexts.invitationForOther(row.email));
  }
  return row;
}

/** For the sign-up screen: whom an invitation is for and until when, or the refusal it would meet. */
export async function describeInvitation(
  db: Db,
  token: string,
  now = new Date(),
): Promise<{ email: string | null; expiresAt: string }> {
  const row = await admittingInvitation(db, token, null, now);
  return { email: row.email, expiresAt: row.expiresAt };
}

/**
 * Checks an invitation for a sign-up of `email` (resolving with it) and, with `consume`, spends one use of it in the transaction. The
 * spending update re-checks every condition, so of two sign-ups racing for the last use one gets it and the other
 * is told it was used (on PostgreSQL the second waits on the row and re-reads it).
 */
export async function admitInvitation(
  tx: Db | Tx,
  token: string,
  email: string,
  { now, consume }: { now: Date; consume: boolean },
): Promise<InvitationRow> {
  const row = await admittingInvitation(tx, token, email, now);
  if (!consume) return row;
  const spent = await tx
    .update(invitations)
    .set({ uses: sql`${invitations.uses} + 1` })
    .where(
      and(
        eq(invitations.id, row.id),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, now.toISOString()),
        lt(invitations.uses, invitations.maxUses),
      ),
    )
    .returning({ id: invitations.id });
  if (!spent.length) throw new DomainError('invitation_used');
  return row;
}
