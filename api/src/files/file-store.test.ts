import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { fileStore, type FileStore } from './file-store';

let dataDir: string;
let store: FileStore;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'office-files-'));
  store = fileStore(dataDir, 'uploads');
});

afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

test('bytes and streams are stored under their name, private to the server, and read back', async () => {
  expect(await store.put('a.txt', new TextEncoder().encode('first'))).toBe(5);
  expect(await store.put('b.txt', Readable.from(['streamed ', 'in parts']))).toBe(17);
  expect(await text(store.open('a.txt') ?? Readable.from([]))).toBe('first');
  expect(await text(store.open('b.txt') ?? Readable.from([]))).toBe('streamed in parts');
  expect(statSync(join(dataDir, 'uploads')).mode & 0o777).toBe(0o700);
  expect(statSync(join(dataDir, 'uploads', 'a.txt')).mode & 0o777).toBe(0o600);
});

test('a taken name is refused and keeps its file; a failed stream leaves nothing', async () => {
  await store.put('taken.txt', new TextEncoder().encode('kept'));
  await expect(store.put('taken.txt', new TextEncoder().encode('other'))).rejects.toMatchObject({ code: 'EEXIST' });
  expect(await text(store.open('taken.txt') ?? Readable.from([]))).toBe('kept');

  const failing = new Readable({
    read() {
      this.push('half');
      this.destroy(new Error('connection reset'));
    },
  });
  await expect(store.put('broken.txt', failing)).rejects.toThrow('connection reset');
  expect(readdirSync(join(dataDir, 'uploads'))).toEqual(['taken.txt']);
});

test('a missing file opens as null and removing it twice is no error', async () => {
  await store.put('gone.txt', new TextEncoder().encode('x'));
  await store.remove('gone.txt');
  await store.remove('gone.txt');
  expect(store.open('gone.txt')).toBeNull();
});
