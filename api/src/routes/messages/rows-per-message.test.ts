import { afterEach, describe, expect, test } from 'vitest';
import { uuidv7, type Actor } from '@office/sync-protocol';
import { count, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '../../db/client';
import * as schema from '../../db/schema';
import { transaction } from '../../db/transaction';
import { newPendingEffects, runInTransaction } from '../../domain/commands';
import { createUserCommand } from '../../domain/users/commands';
import { hashPassword } from '../../domain/users/passwords';
import { bearer, startTestServer, type TestServer } from '../../../test/support';

// Issue 14: a team chat message is one row, whatever the size of the team. Every row of every table is counted
// before and after one message, in a team of 5 and of 500.

const PASSWORD = 'rows-per-message';
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Rows in every table of the schema (all but the migrations' own), by table name. */
async function rowsByTable(db: Db): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const table of Object.values(schema) as SQLiteTable[]) {
    const [row] = await db.select({ n: count() }).from(table);
    counts.set(getTableName(table), row?.n ?? 0);
  }
  return counts;
}

/** The tables that grew, and by how many rows. */
function growth(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  return Object.fromEntries(
    [...after].flatMap(([table, n]) => (n !== (before.get(table) ?? 0) ? [[table, n - (before.get(table) ?? 0)]] : [])),
  );
}

/** A team of `size` people (one password hash for all, so it is quick), through the real command. */
async function team(db: Db, size: number): Promise<{ email: string }[]> {
  const passwordHash = await hashPassword(PASSWORD);
  const people = Array.from({ length: size }, (_, i) => ({
    id: uuidv7(),
    name: `Member ${i + 1}`,
    email: `member${i + 1}@rows.test`,
    role: i === 0 ? ('manager' as const) : ('employee' as const),
  }));
  await transaction(db, async (tx) => {
    for (const person of people) {
      const actor: Actor = { id: person.id, role: person.role };
      await runInTransaction(tx, actor, createUserCommand, { ...person, passwordHash }, newPendingEffects());
    }
  });
  return people;
}

describe('rows stored per team chat message', () => {
  for (const size of [5, 500]) {
    test(`a message is 2 rows in a team of ${size}: the message and its change (audience \`team\` on it)`, async () => {
      server = await startTestServer({ seed: false });
      const { app } = server;
      const [author] = await team(app.db, size);
      const login = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: author?.email, password: PASSWORD },
      });
      const { token } = login.json<{ token: string }>();

      const send = async (text: string) => {
        const before = await rowsByTable(app.db);
        const res = await app.inject({
          method: 'POST',
          url: '/api/messages',
          headers: bearer(token),
          payload: { text },
        });
        expect(res.statusCode).toBe(201);
        // The background push queue has run (it only clears the message's flag: nobody has a subscription).
        await app.push.settled();
        return growth(before, await rowsByTable(app.db));
      };
      // An author's first message ever also starts their count of messages (Employee Management's "Messages").
      expect(await send('Good morning')).toEqual({ chat_messages: 1, change_log: 1, chat_author_counts: 1 });
      expect(await send(`Hello, all ${size} of you`)).toEqual({ chat_messages: 1, change_log: 1 });

      // And every other member has both as unread notices.
      const other = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: `member${size}@rows.test`, password: PASSWORD },
      });
      const list = await app.inject({
        method: 'GET',
        url: '/api/notifications?limit=5',
        headers: bearer(other.json<{ token: string }>().token),
      });
      expect(list.json()).toMatchObject({
        unreadCount: 2,
        notifications: [
          {
            type: 'chat_message',
            title: 'New message from Member 1',
            message: `Hello, all ${size} of you`,
            read: false,
          },
          { type: 'chat_message', title: 'New message from Member 1', message: 'Good morning', read: false },
        ],
      });
    });
  }
});
