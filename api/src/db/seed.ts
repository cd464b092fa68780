import { count } from 'drizzle-orm';
import { uuidv7, type Actor, type Role } from '@office/sync-protocol';
import type { Db } from './client';
import { users } from './schema';
import { runCommand, type EffectsFlusher } from '../domain/commands';
import { createUserCommand } from '../domain/users/commands';
import { hashPassword } from '../domain/users/passwords';

export const DEMO_PASSWORD = 'demo1234';

/** The demo workspace's people; the README lists the same accounts. */
export const demoAccounts: { name: string; email: string; role: Role; department: string }[] = [
  { name: 'Maya Manager', email: 'manager@demo.local', role: 'manager', department: 'Operations' },
  { name: 'Adam Admin', email: 'admin@demo.local', role: 'admin', department: 'IT' },
  { name: 'Alice Johnson', email: 'alice@demo.local', role: 'employee', department: 'Engineering' },
  { name: 'Bob Smith', email: 'bob@demo.local', role: 'employee', department: 'Design' },
  { name: 'Carol Davis', email: 'carol@demo.local', role: 'employee', department: 'Marketing' },
];

export const isEmpty = (db: Db): boolean => (db.select({ n: count() }).from(users).get()?.n ?? 0) === 0;

/** Seeds the demo workspace through the same commands the app uses, so the change log is complete. */
export async function seedDemo(db: Db, flush: EffectsFlusher): Promise<void> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  for (const account of demoAccounts) {
    const id = uuidv7();
    const actor: Actor = { id, role: account.role };
    runCommand(db, flush, actor, createUserCommand, { id, passwordHash, ...account });
  }
}
