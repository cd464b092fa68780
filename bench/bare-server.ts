// The reference of `npm run bench`: a bare Fastify + better-sqlite3 server that writes one durable row per
// request and nothing else (no auth, no change log, no realtime). Durable the way the product is: WAL with
// synchronous=NORMAL, and every answer waits for a group fsync of the WAL (api/src/db/group-commit.ts), so the
// two are compared at the same promise to the client. Run as a child process, like the product's server.
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { join } from 'node:path';
import { GroupCommit, walFlusher } from '../api/src/db/group-commit';

const dataDir = process.env.DATA_DIR ?? '.';
const file = join(dataDir, 'bare.db');
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL, created_at TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO rows (body, created_at) VALUES (?, ?)');
const totalChanges = db.prepare('SELECT total_changes()').pluck();
const wal = walFlusher(file);
const groupCommit = new GroupCommit(() => totalChanges.get() as number, wal.flush);

const app = Fastify({ logger: false });
app.post('/rows', async (request, reply) => {
  const { lastInsertRowid } = insert.run(JSON.stringify(request.body), new Date().toISOString());
  await groupCommit.durable();
  return reply.status(201).send({ id: Number(lastInsertRowid) });
});

const close = () => {
  void app.close().then(() => {
    wal.close();
    db.close();
    process.exit(0);
  });
};
process.on('SIGTERM', close);
process.on('SIGINT', close);

await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
const address = app.server.address();
// The line the bench's process starter waits for (api/server-process.ts), as the product prints it.
process.stdout.write(`running at http://localhost:${typeof address === 'object' && address ? address.port : 0}\n`);
