import type { User } from '@office/sync-protocol';
import type { users } from '../../db/schema';

export type UserRow = typeof users.$inferSelect;

/** The only way a user leaves the server: no password, no hash, no token version. */
export function toUserDto(row: UserRow): User {
  return {
    id: row.id,
    _id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    department: row.department,
    avatar: row.avatar,
    status: row.status,
    lastSeen: row.lastSeen,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    version: row.version,
  };
}
