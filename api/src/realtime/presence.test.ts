import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { users } from '../db/schema';
import { signIn, startTestServer, type TestServer } from '../../test/support';
import { PresenceTracker } from './presence';

let server: TestServer;
let aliceId: string;

beforeAll(async () => {
  server = await startTestServer();
  aliceId = (await signIn(server.app, 'alice@demo.local')).user.id;
});

afterAll(async () => {
  await server.close();
});

const statusOf = async (id: string) =>
  (await server.app.db.select({ status: users.status }).from(users).where(eq(users.id, id)))[0]?.status;

/** Asking the other nodes whether they hold the person takes a while, as it does over PostgreSQL. */
function slowElsewhere(): { elsewhere: () => Promise<boolean>; answer: () => void } {
  let answer = () => {};
  const asked = new Promise<boolean>((resolve) => (answer = () => resolve(false)));
  return { elsewhere: () => asked, answer };
}

describe('presence writes of one person land in the order they were asked for', () => {
  test('a reconnect while the disconnect asks the other nodes leaves the person online', async () => {
    const { elsewhere, answer } = slowElsewhere();
    const presence = new PresenceTracker(server.app.db, elsewhere);
    await presence.connect(aliceId, 'first-socket');

    const disconnected = presence.disconnect(aliceId, 'first-socket');
    const reconnected = presence.connect(aliceId, 'second-socket');
    answer();

    expect(await disconnected).toBeNull();
    expect(await reconnected).toBe(true);
    await presence.settled();
    expect(await statusOf(aliceId)).toBe('online');
  });

  test('a status set while the disconnect is still stored comes after it', async () => {
    const { elsewhere, answer } = slowElsewhere();
    const presence = new PresenceTracker(server.app.db, elsewhere);
    await presence.connect(aliceId, 'socket');

    const disconnected = presence.disconnect(aliceId, 'socket');
    const away = presence.store(aliceId, 'away');
    answer();

    expect(await disconnected).toEqual(expect.any(String));
    expect(await away).toEqual(expect.any(String));
    expect(await statusOf(aliceId)).toBe('away');
  });
});
