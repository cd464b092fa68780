import { afterEach, expect, test, vi } from 'vitest';
import { uuidv7 } from '@office/sync-protocol';
import { httpTransport } from './transport';

// The engine writes what the server answers into IndexedDB: an answer that is not the protocol's must fail the
// call (bad_answer, retried with backoff) instead of being cast and stored.

afterEach(() => {
  vi.unstubAllGlobals();
});

/** The server answers every call with `body` (status 200). */
function serverAnswers(body: unknown): void {
  const storage = new Map([['token', 'a-token']]);
  vi.stubGlobal('localStorage', {
    getItem: (key: string) => storage.get(key) ?? null,
    setItem: (key: string, value: string) => storage.set(key, value),
    removeItem: (key: string) => storage.delete(key),
  });
  vi.stubGlobal(
    'fetch',
    vi.fn(
      async () => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }),
    ),
  );
}

const clientId = uuidv7();

test('a pull answer that is not a pull response fails the call', async () => {
  serverAnswers({ changes: [{ op: 'put', entity: 'task', id: 7 }], cursor: 'later' });
  await expect(httpTransport.pull({ clientId, cursor: '0', limit: 100 })).rejects.toMatchObject({ code: 'bad_answer' });
});

test('a push answer without its outcomes fails the call', async () => {
  serverAnswers({ lastMutationId: 3 });
  await expect(httpTransport.push({ clientId, mutations: [] })).rejects.toMatchObject({ code: 'bad_answer' });
});

test('a push answer of the protocol is passed on as parsed', async () => {
  serverAnswers({ outcomes: [{ id: 1, status: 'applied' }], lastMutationId: 1 });
  await expect(httpTransport.push({ clientId, mutations: [] })).resolves.toEqual({
    outcomes: [{ id: 1, status: 'applied' }],
    lastMutationId: 1,
  });
});
