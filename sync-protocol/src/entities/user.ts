import { z } from 'zod';
import { idSchema } from '../ids';

/** Roles of spec section 6. */
export const roles = ['employee', 'manager', 'admin'] as const;
/** A user's role. */
export type Role = (typeof roles)[number];
/** Presence values of spec section 4. */
export const presenceStatuses = ['online', 'away', 'offline'] as const;
/** A user's presence. */
export type PresenceStatus = (typeof presenceStatuses)[number];

/** A user as every answer carries it: never a password, never a hash. */
export const userSchema = z.object({
  id: idSchema,
  _id: idSchema,
  name: z.string(),
  email: z.string(),
  role: z.enum(roles),
  department: z.string().nullable(),
  avatar: z.string().nullable(),
  status: z.enum(presenceStatuses),
  lastSeen: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  version: z.number().int(),
});
/** A user on the wire. */
export type User = z.infer<typeof userSchema>;
