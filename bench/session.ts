import type { AuthResponse } from '@office/sync-protocol';
import type { SeededUser } from './seed-org';

/** A signed-in seeded user. */
export interface BenchSession {
  user: SeededUser;
  token: string;
}

export interface Answer<T> {
  status: number;
  body: T;
}

/** One JSON call to the bench server. */
export async function call<T>(
  url: string,
  token: string | null,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<Answer<T>> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** Signs one person in through the real login route (argon2 verification included); resolves with the token. */
export async function tokenFor(url: string, who: { email: string; password: string }): Promise<string> {
  const answer = await call<AuthResponse>(url, null, 'POST', '/api/auth/login', {
    email: who.email,
    password: who.password,
  });
  if (answer.status !== 200) throw new Error(`Signing in ${who.email} over HTTP answered ${answer.status}`);
  return answer.body.token;
}

/** Signs every user in through the real login route (argon2 verification included), a few at a time. */
export async function signInAll(url: string, users: SeededUser[]): Promise<BenchSession[]> {
  const sessions: BenchSession[] = [];
  const PARALLEL = 4;
  for (let start = 0; start < users.length; start += PARALLEL) {
    const batch = await Promise.all(
      users.slice(start, start + PARALLEL).map(async (user) => ({ user, token: await tokenFor(url, user) })),
    );
    sessions.push(...batch);
  }
  return sessions;
}
