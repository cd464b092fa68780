import { and, eq, ne } from 'drizzle-orm';
import { z } from 'zod';
import { idSchema, roles, updateDetailsArgsSchema } from '@office/sync-protocol';
import type { Tx } from '../../db/client';
import { users } from '../../db/schema';
import { defineCommand } from '../commands';
import { DomainError } from '../errors';
import { toUserDto, type UserRow } from './serialize';

/** Every signed-in user sees the directory, so user changes go to the whole team. */
export const USER_AUDIENCE = ['team'];

function assertEmailFree(tx: Tx, email: string, exceptId?: string): void {
  const clash = tx
    .select({ id: users.id })
    .from(users)
    .where(exceptId ? and(eq(users.email, email), ne(users.id, exceptId)) : eq(users.email, email))
    .get();
  if (clash) throw new DomainError('email_taken');
}

export function loadActiveUser(tx: Tx, id: string): UserRow {
  const row = tx.select().from(users).where(eq(users.id, id)).get();
  if (!row || row.deactivatedAt) throw new DomainError('user_not_found');
  return row;
}

/** `user.create`: registration, Google sign-up and the seed. Not a client mutation: it needs a password hash. */
export const createUserCommand = defineCommand({
  name: 'user.create',
  args: z.object({
    id: idSchema,
    name: z.string().trim().min(1),
    email: z.string().trim().toLowerCase(),
    passwordHash: z.string().nullable(),
    googleSub: z.string().nullable().default(null),
    role: z.enum(roles).default('employee'),
    department: z.string().nullable().default(null),
  }),
  run(ctx, args) {
    assertEmailFree(ctx.tx, args.email);
    const stamp = ctx.now.toISOString();
    ctx.tx
      .insert(users)
      .values({ ...args, createdAt: stamp, updatedAt: stamp })
      .run();
    ctx.record({ entity: 'user', id: args.id, op: 'put', audience: USER_AUDIENCE });
    return toUserDto(loadActiveUser(ctx.tx, args.id));
  },
});

/** `user.updateDetails`: PUT /api/auth/updatedetails and the sync mutation of the same name. */
export const updateDetailsCommand = defineCommand({
  name: 'user.updateDetails',
  args: updateDetailsArgsSchema,
  run(ctx, args) {
    const current = loadActiveUser(ctx.tx, ctx.actor.id);
    if (current.name === args.name && current.email === args.email) return toUserDto(current);
    assertEmailFree(ctx.tx, args.email, ctx.actor.id);
    ctx.tx
      .update(users)
      .set({ name: args.name, email: args.email, updatedAt: ctx.now.toISOString() })
      .where(eq(users.id, ctx.actor.id))
      .run();
    ctx.record({ entity: 'user', id: ctx.actor.id, op: 'put', audience: USER_AUDIENCE });
    return toUserDto(loadActiveUser(ctx.tx, ctx.actor.id));
  },
});
