import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { io as connect, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents, User } from '@office/sync-protocol';
import { buildApp, type BuildOptions } from './app';
import { loadConfig, type Config } from './config';
import { DEMO_PASSWORD, seedDemo } from './db/seed';
import { UploadStore } from './domain/chat/uploads';

export interface TestServer {
  app: FastifyInstance;
  config: Config;
  url: string;
  close(): Promise<void>;
}

/** The real app on a real SQLite file in a fresh temp dir, listening on a free loopback port. */
export async function startTestServer(
  options: { seed?: boolean; config?: Partial<Config>; dataDir?: string } & Omit<BuildOptions, 'config'> = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'office-api-'));
  const config = loadConfig(
    {},
    { dataDir, port: 0, host: '127.0.0.1', jwtSecret: 'test-secret-'.padEnd(48, 'x'), ...options.config },
  );
  const app = await buildApp({ ...options, config, logger: false });
  if (options.seed !== false) await seedDemo(app.db, app.flush, { uploads: new UploadStore(dataDir) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    config,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Signs a demo user in over HTTP; returns their token and user. */
export async function signIn(
  app: FastifyInstance,
  email: string,
  password = DEMO_PASSWORD,
): Promise<{ token: string; user: User }> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
  if (res.statusCode !== 200) throw new Error(`sign-in of ${email} failed: ${res.statusCode} ${res.body}`);
  return res.json<{ token: string; user: User }>();
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export type TestSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** A real Socket.IO client; resolves once connected, rejects with the server's refusal. */
export function connectSocket(url: string, token?: string): Promise<TestSocket> {
  const socket: TestSocket = connect(url, {
    path: '/socket.io',
    transports: ['websocket'],
    reconnection: false,
    ...(token === undefined ? {} : { auth: { token } }),
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

/** Resolves with the next payload of an event, or rejects after a timeout. */
export function nextEvent<E extends keyof ServerToClientEvents>(
  socket: TestSocket,
  event: E,
  timeoutMs = 3000,
): Promise<Parameters<ServerToClientEvents[E]>[0]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    // socket.io-client's typed `once` cannot express a generic event's listener; the cast keeps the payload type.
    (socket.once as (e: string, fn: (payload: unknown) => void) => void)(event, (payload) => {
      clearTimeout(timer);
      resolve(payload as Parameters<ServerToClientEvents[E]>[0]);
    });
  });
}
