import { and, eq, ne } from 'drizzle-orm';
import { z } from 'zod';
import { idSchema, personNameSchema, roles, updateDetailsArgsSchema, type User } from '@office/sync-protocol';
import type { Tx } from '../../db/client';
import { isUniqueViolation } from '../../db/dialect';
import { users } from '../../db/schema';
import { recordAct } from '../audit/audit-trail';
import { defineCommand, type CommandContext } from '../commands';
import { DomainError } from '../errors';
import { forgetAuthor } from '../read-support';
import { assertNameNotLookalike, nameSkeleton } from './name-lookalikes';
import { endOtherSessions } from './sessions';
import { toUserDto, type UserRow } from './serialize';

/** Every signed-in user sees the directory, so user changes go to the whole team. */
export const USER_AUDIENCE = ['team'];

async function assertEmailFree(tx: Tx, email: string, exceptId?: string): Promise<void> {
  const [clash] = await tx
    .select({ id: users.id })
    .from(users)
    .where(exceptId ? and(eq(users.email, email), ne(users.id, exceptId)) : eq(users.email, email))
    .limit(1);
  if (clash) throw new DomainError('email_taken');
}

export async function loadActiveUser(tx: Tx, id: string): Promise<UserRow> {
  const [row] = await tx.select().from(users).where(eq(users.id, id));
  if (!row || row.deactivatedAt) throw new DomainError('user_not_found');
  return row;
}

/** What makes a user: registration, Google sign-up and the seed. */
export const newUserArgsSchema = z.object({
  id: idSchema,
  name: personNameSchema('A name is required'),
  email: z.string().trim().toLowerCase(),
  passwordHash: z.string().nullable(),
  googleSub: z.string().nullable().default(null),
  role: z.enum(roles).default('employee'),
  department: z.string().nullable().default(null),
});
export type NewUserArgs = z.output<typeof newUserArgsSchema>;

/** Inserts a user inside a command; the email must be free and the name no look-alike of another member's. */
export async function insertUser(ctx: CommandContext, args: NewUserArgs): Promise<User> {
  await assertEmailFree(ctx.tx, args.email);
  await assertNameNotLookalike(ctx.tx, args.name, args.id);
  const stamp = ctx.now.toISOString();
  // Two registrations of one email at once can both find it free (on PostgreSQL, where they run side by side):
  // the unique index decides, and the later one is told the email is taken instead of failing.
  const inserted = await ctx.tx
    .insert(users)
    .values({ ...args, nameSkeleton: nameSkeleton(args.name), createdAt: stamp, updatedAt: stamp })
    .onConflictDoNothing({ target: users.email })
    .returning({ id: users.id });
  if (!inserted.length) throw new DomainError('email_taken');
  await ctx.record({ entity: 'user', id: args.id, op: 'put', audience: USER_AUDIENCE });
  return toUserDto(await loadActiveUser(ctx.tx, args.id));
}

/** `user.create`: the seed's accounts. Not a client mutation: it needs a password hash. Sign-ups go through `user.signUp`. */
export const createUserCommand = defineCommand({
  name: 'user.create',
  args: newUserArgsSchema,
  run: insertUser,
});

/** `user.updateDetails`: PUT /api/auth/updatedetails and the sync mutation of the same name. */
export const updateDetailsCommand = defineCommand({
  name: 'user.updateDetails',
  args: updateDetailsArgsSchema,
  async run(ctx, args) {
    const current = await loadActiveUser(ctx.tx, ctx.actor.id);
    if (current.name === args.name && current.email === args.email) return toUserDto(current);
    await assertEmailFree(ctx.tx, args.email, ctx.actor.id);
    if (current.name !== args.name) await assertNameNotLookalike(ctx.tx, args.name, ctx.actor.id);
    try {
      await ctx.tx
        .update(users)
        .set({
          name: args.name,
          nameSkeleton: nameSkeleton(args.name),
          email: args.email,
          updatedAt: ctx.now.toISOString(),
        })
        .where(eq(users.id, ctx.actor.id));
      forgetAuthor(ctx.tx, ctx.actor.id);
    } catch (error) {
      // Two people taking one email at once can both find it free (on PostgreSQL, where they run side by side):
      // the unique index decides, and the later one is told the email is taken instead of failing.
      if (isUniqueViolation(error)) throw new DomainError('email_taken');
      throw error;
    }
    await ctx.record({ entity: 'user', id: ctx.actor.id, op: 'put', audience: USER_AUDIENCE });
    return toUserDto(await loadActiveUser(ctx.tx, ctx.actor.id));
  },
});

/**
 * `user.setPassword`: the password route, once the current password was verified, and the choice of a new one after
 * a reset (argon2 runs outside the transaction, which awaits nothing but its queries). Every session of the user ends
 * but `keepSessionId`, the one that made the change, which is no longer restricted to choosing a password. Recorded in
 * the audit trail as a password changed, or chosen after a reset, with how many other sessions ended.
 */
export const setPasswordCommand = defineCommand({
  name: 'user.setPassword',
  args: z.object({ passwordHash: z.string().min(1), verifiedHash: z.string().nullable(), keepSessionId: z.string() }),
  async run(ctx, args) {
    const current = await loadActiveUser(ctx.tx, ctx.actor.id);
    // The password changed between the verification and now: the verification no longer holds.
    if (current.passwordHash !== args.verifiedHash) throw new DomainError('invalid_input', 'Please try again.');
    await ctx.tx
      .update(users)
      .set({ passwordHash: args.passwordHash, mustChangePassword: false, updatedAt: ctx.now.toISOString() })
      .where(eq(users.id, ctx.actor.id));
    const ended = await endOtherSessions(ctx.tx, ctx.actor.id, args.keepSessionId, ctx.now);
    await recordAct(ctx, {
      action: current.mustChangePassword ? 'password_chosen' : 'password_changed',
      details: { sessionsEnded: String(ended) },
    });
    return { id: ctx.actor.id };
  },
});

/** `user.setAvatar`: the avatar route, once the file is stored. Everyone's directory shows the new photo. */
export const setAvatarCommand = defineCommand({
  name: 'user.setAvatar',
  args: z.object({ avatar: z.string().min(1) }),
  async run(ctx, args) {
    const { avatar: previous } = await loadActiveUser(ctx.tx, ctx.actor.id);
    await ctx.tx
      .update(users)
      .set({ avatar: args.avatar, updatedAt: ctx.now.toISOString() })
      .where(eq(users.id, ctx.actor.id));
    forgetAuthor(ctx.tx, ctx.actor.id);
    await ctx.record({ entity: 'user', id: ctx.actor.id, op: 'put', audience: USER_AUDIENCE });
    ctx.announce({ to: ['team'], event: 'avatar-updated', payload: { userId: ctx.actor.id, avatar: args.avatar } });
    return { user: toUserDto(await loadActiveUser(ctx.tx, ctx.actor.id)), previous };
  },
});
