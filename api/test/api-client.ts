import type { FastifyInstance } from 'fastify';
import { beforeAll, expect } from 'vitest';
import {
  initialCursor,
  pullResponseSchema,
  pushResponseSchema,
  type AuthResponse,
  type Cursor,
  type ErrorCode,
  type Mutation,
  type PullResponse,
  type PushResponse,
  type User,
} from '@office/sync-protocol';
import { bearer, everyCommitReadable, signIn, useTestServer } from './support';

/** A signed-in demo user: their token and user. */
export type Session = { token: string; user: User };
export type DemoName = 'manager' | 'admin' | 'alice' | 'bob' | 'carol';
const demoNames: DemoName[] = ['manager', 'admin', 'alice', 'bob', 'carol'];

/** Signs every demo user in. */
export async function signInDemoPeople(app: FastifyInstance): Promise<Record<DemoName, Session>> {
  const entries = await Promise.all(
    demoNames.map(async (name) => [name, await signIn(app, `${name}@demo.local`)] as const),
  );
  return Object.fromEntries(entries) as Record<DemoName, Session>;
}

/** `useTestServer` plus the demo people (signed in before the tests: read them in tests), its database and client. */
export function useSeededServer(options: Parameters<typeof useTestServer>[0] = {}) {
  const server = useTestServer(options);
  const people = {} as Record<DemoName, Session>;
  beforeAll(async () => {
    Object.assign(people, await signInDemoPeople(server.app));
  });
  return { server, people, db: () => server.app.db, ...apiClient(() => server.app) };
}

/** A mutation as a client pushes it, stamped now. */
export const mutation = (id: number, name: Mutation['name'], args: Record<string, unknown>): Mutation => ({
  id,
  name,
  args,
  at: new Date().toISOString(),
});

export interface Answer<T = unknown> {
  status: number;
  body: T;
}

/** A refusal with its status, stable code and the exact message. */
export function expectRefusal(answer: Answer, status: number, code: ErrorCode, message: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body).toMatchObject({ code, message });
}

/** HTTP calls against the app of a test file, as a session (or without one), plus the sync calls and registering. */
export function apiClient(app: () => FastifyInstance) {
  async function call<T = unknown>(
    session: Session | null,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: Record<string, unknown>,
  ): Promise<Answer<T>> {
    const res = await app().inject({
      method,
      url,
      headers: session ? bearer(session.token) : {},
      ...(payload === undefined ? {} : { payload }),
    });
    return { status: res.statusCode, body: res.json<T>() };
  }

  /** One pull; a bootstrap is followed through all its pages, their changes in one answer (the last page's cursor). */
  async function pull(session: Session, clientId: string, cursor: Cursor, limit = 1000): Promise<PullResponse> {
    // What the test wrote before it pulls is in the pull (see everyCommitReadable).
    await everyCommitReadable(app().db);
    const page = async (snapshot: string | null) => {
      const query = `clientId=${clientId}&cursor=${encodeURIComponent(snapshot ? initialCursor : cursor)}&limit=${limit}`;
      const res = await call(session, 'GET', `/api/sync/pull?${query}${snapshot ? `&snapshot=${snapshot}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return pullResponseSchema.parse(res.body);
    };
    const first = await page(null);
    let last = first;
    const changes = [...first.changes];
    while (last.bootstrap?.next) {
      last = await page(last.bootstrap.next);
      changes.push(...last.changes);
    }
    return { ...last, changes, reset: first.reset };
  }

  async function push(session: Session, clientId: string, mutations: Mutation[]): Promise<PushResponse> {
    const res = await call(session, 'POST', '/api/sync/push', { clientId, mutations });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return pushResponseSchema.parse(res.body);
  }

  let registered = 0;

  /** Registers a new employee under a unique email; their session, email and password. */
  async function registerEmployee(
    name: string,
    password = 'secret99',
  ): Promise<Session & { email: string; password: string }> {
    const email = `${name.toLowerCase().replace(/\W+/g, '.')}.${++registered}@example.com`;
    const res = await call<AuthResponse>(null, 'POST', '/api/auth/register', { name, email, password });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { token: res.body.token, user: res.body.user, email, password };
  }

  return { call, pull, push, registerEmployee };
}
