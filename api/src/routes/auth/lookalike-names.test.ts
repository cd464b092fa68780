import { describe, expect, test } from 'vitest';
import { eq, isNull } from 'drizzle-orm';
import { uuidv7, type AuthResponse, type User } from '@office/sync-protocol';
import { users } from '../../db/schema';
import { backfillNameSkeletons, lookalikeNameMessage, nameSkeleton } from '../../domain/users/name-lookalikes';
import { expectRefusal, mutation, useSeededServer } from '../../../test/api-client';

// One seeded server for the file: Maya Manager, Alice Johnson, Bob Smith ... are members.
const { server, people, db, call, push, registerEmployee } = useSeededServer();

const register = (name: string) =>
  call<AuthResponse>(null, 'POST', '/api/auth/register', {
    name,
    email: `lookalike.${uuidv7()}@example.com`,
    password: 'secret99',
  });

const membersNamed = async (name: string) => (await db().select().from(users).where(eq(users.name, name))).length;

describe('names that would pass for another member', () => {
  // A Cyrillic "а" (U+0430) in Maya; a capital I for the l of Alice.
  const cyrillicMaya = 'M\u0430ya Manager';

  test('registering "Mаya Manager" with a Cyrillic а beside the real Maya Manager is refused with a clear 400', async () => {
    expectRefusal(await register(cyrillicMaya), 400, 'invalid_input', lookalikeNameMessage);
    expectRefusal(await register('AIice Johnson'), 400, 'invalid_input', lookalikeNameMessage);
    expectRefusal(await register('Bob  Smith'), 400, 'invalid_input', lookalikeNameMessage);
    expect(await membersNamed(cyrillicMaya)).toBe(0);
  });

  test('the very same name stays allowed: two people may share a name', async () => {
    const res = await register('Bob Smith');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await membersNamed('Bob Smith')).toBe(2);
  });

  test('a profile update to a look-alike is refused, over HTTP and as a queued write; a fair rename goes through', async () => {
    const eve = await registerEmployee('Eve Example');
    const rename = (name: string) =>
      call<{ user: User }>(eve, 'PUT', '/api/auth/updatedetails', { name, email: eve.email });
    expectRefusal(await rename(cyrillicMaya), 400, 'invalid_input', lookalikeNameMessage);
    const queued = await push(eve, uuidv7(), [
      mutation(1, 'user.updateDetails', { name: cyrillicMaya, email: eve.email }),
      mutation(2, 'user.updateDetails', { name: 'Eve Renamed', email: eve.email }),
    ]);
    expect(queued.outcomes).toEqual([
      { id: 1, status: 'rejected', code: 'invalid_input', message: lookalikeNameMessage },
      { id: 2, status: 'applied' },
    ]);
    const [row] = await db().select().from(users).where(eq(users.id, eve.user.id));
    expect(row).toMatchObject({ name: 'Eve Renamed', nameSkeleton: nameSkeleton('Eve Renamed') });
    // Her own name, written again with a look-alike, clashes with nobody else.
    expect((await rename('Eve Renam\u0435d')).status).toBe(200);
  });

  test('a deactivated member’s name is free to resemble', async () => {
    const former = await registerEmployee('Zed Former');
    const deleted = await call(people.manager, 'DELETE', `/api/auth/users/${former.user.id}`);
    expect(deleted.status).toBe(200);
    expect((await register('Z\u0435d Former')).status).toBe(201);
  });

  test('members stored before skeletons were kept get theirs at start-up, and are protected from then on', async () => {
    const old = await registerEmployee('Olga Oldtimer');
    await db().update(users).set({ nameSkeleton: null }).where(eq(users.id, old.user.id));
    await backfillNameSkeletons(server.app.db, 1);
    expect(await db().select().from(users).where(isNull(users.nameSkeleton))).toHaveLength(0);
    expectRefusal(await register('Olg\u0430 Oldtimer'), 400, 'invalid_input', lookalikeNameMessage);
  });
});
