import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { uploadLimits, type ChatMessage, type Conversation, type ErrorBody } from '@office/sync-protocol';
import { sampleFile } from '../../test/multipart';
import type { ServerProcess } from '../../server-process';
import {
  callJson,
  readDatabase,
  signInOverHttp,
  streamMultipartUpload,
  useChildServers,
  type HttpSession,
} from '../../test/fault-support';

const MB = 1024 * 1024;
const PARALLEL_UPLOADS = 10;
const FILE_BYTES = 5 * MB;
const MAX_GROWTH_BYTES = 50 * MB;

const servers = useChildServers();
let server: ServerProcess;
let alice: HttpSession;
let bob: HttpSession;

const uploadsDir = () => join(server.dataDir, 'uploads');
const filesOnDisk = () => readdirSync(uploadsDir()).sort();
const rowCounts = () =>
  readDatabase(server.dataDir, (db) =>
    Object.fromEntries(
      ['chat_messages', 'chat_attachments', 'direct_messages', 'direct_attachments'].map((table) => [
        table,
        db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()?.n,
      ]),
    ),
  );

/** A chat upload of `size` bytes that start as a file of the name's format is expected to. */
const chatUpload = (file: { name: string; type: string; size: number }) =>
  streamMultipartUpload<{ message: ChatMessage } & ErrorBody>({
    url: `${server.url}/api/messages/upload`,
    token: alice.token,
    file: { ...file, head: sampleFile(file.name) },
  });

beforeAll(async () => {
  // The server runs as its own process, so its memory figures are the server's alone.
  server = await servers.start({ dataDir: servers.newDataDir(), env: { SEED_DEMO: '1' } });
  [alice, bob] = await Promise.all([
    signInOverHttp(server.url, 'alice@demo.local'),
    signInOverHttp(server.url, 'bob@demo.local'),
  ]);
  // Warm-up: the multipart code paths are loaded and compiled before anything is measured.
  for (let i = 0; i < 3; i++) {
    const warm = await chatUpload({ name: `warm-up-${i}.mp4`, type: 'video/mp4', size: MB });
    expect(warm.status).toBe(201);
  }
}, 30_000);

describe('upload stress', () => {
  test(`${PARALLEL_UPLOADS} parallel 5 MB uploads grow the server's memory by at most 50 MB and are all stored`, async () => {
    server.resetPeakMemory();
    const baseline = server.memory().rss;

    const answers = await Promise.all(
      Array.from({ length: PARALLEL_UPLOADS }, (_, i) =>
        chatUpload({ name: `clip-${i}.mp4`, type: 'video/mp4', size: FILE_BYTES }),
      ),
    );
    const growth = server.memory().peak - baseline;
    if (process.env.FAULT_VERBOSE)
      console.info(
        `upload stress: baseline ${(baseline / MB).toFixed(1)} MB, peak growth ${(growth / MB).toFixed(1)} MB`,
      );

    expect(answers.map((answer) => answer.status)).toEqual(Array<number>(PARALLEL_UPLOADS).fill(201));
    expect(growth, `peak RSS grew by ${(growth / MB).toFixed(1)} MB`).toBeLessThanOrEqual(MAX_GROWTH_BYTES);

    const stored = readDatabase(server.dataDir, (db) =>
      db.prepare<[], { filename: string; size: number }>('SELECT filename, size FROM chat_attachments').all(),
    );
    const storedSize = new Map(stored.map((row) => [row.filename, row.size]));
    for (const answer of answers) {
      const [attachment] = answer.body.message.attachments;
      expect(answer.body.message.attachments).toHaveLength(1);
      const filename = attachment?.filename ?? '';
      expect(storedSize.get(filename)).toBe(FILE_BYTES);
      const path = join(uploadsDir(), filename);
      expect(statSync(path).size).toBe(FILE_BYTES);
      expect(createHash('sha256').update(readFileSync(path)).digest('hex')).toBe(answer.sha256);
    }
  });

  test('a chat file over 25 MB gets 413 with our body and leaves no file, message or attachment behind', async () => {
    const before = { files: filesOnDisk(), rows: rowCounts() };

    const answer = await chatUpload({ name: 'huge.zip', type: 'application/zip', size: uploadLimits.fileBytes + 1 });

    expect(answer.status).toBe(413);
    const refusal = '"huge.zip" is larger than 25 MB.';
    // The spec's client reads `success` and `error` of a chat upload's answer.
    expect(answer.body).toEqual({ code: 'payload_too_large', message: refusal, success: false, error: refusal });
    expect(filesOnDisk()).toEqual(before.files);
    expect(rowCounts()).toEqual(before.rows);
  });

  test('a direct-message file over 25 MB gets 413 with our body and leaves nothing behind', async () => {
    const started = await callJson<{ conversation: Conversation }>(
      server.url,
      'POST',
      '/api/direct-messages/conversations',
      { token: alice.token, body: { recipientId: bob.user.id } },
    );
    expect(started.status).toBeLessThan(300);
    const before = { files: filesOnDisk(), rows: rowCounts() };

    const answer = await streamMultipartUpload<ErrorBody>({
      url: `${server.url}/api/direct-messages/conversations/${started.body.conversation.id}/messages`,
      token: alice.token,
      file: { name: 'huge.pdf', type: 'application/pdf', size: uploadLimits.fileBytes + 1 },
    });

    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ code: 'payload_too_large', message: '"huge.pdf" is larger than 25 MB.' });
    expect(filesOnDisk()).toEqual(before.files);
    expect(rowCounts()).toEqual(before.rows);
  });
});
