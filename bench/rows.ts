import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Measure } from './measure';
import { call, type BenchSession } from './session';

/** Every row of every table of the server's database, read from its file as the server runs (WAL allows it). */
function totalRows(dataDir: string): number {
  const db = new Database(join(dataDir, 'workspace.db'), { readonly: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .pluck()
      .all() as string[];
    return tables.reduce(
      (sum, table) => sum + (db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number),
      0,
    );
  } finally {
    db.close();
  }
}

/**
 * The row count once nothing changes it any more: the requests a load run left in flight (its generator stops
 * waiting for answers at the end of its time) are still being written for a moment.
 */
async function quietRows(dataDir: string): Promise<number> {
  let previous = totalRows(dataDir);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = totalRows(dataDir);
    if (now === previous) return now;
    previous = now;
  }
}

/**
 * Rows stored per team chat message, all tables counted: 100 messages posted one after the other (each answered
 * once on disk), by several people of the organisation.
 */
export async function measureRowsPerMessage(
  { url, sessions, dataDir }: { url: string; sessions: BenchSession[]; dataDir: string },
  members: number,
): Promise<Measure> {
  const MESSAGES = 100;
  const before = await quietRows(dataDir);
  for (let i = 0; i < MESSAGES; i++) {
    const author = sessions[i % sessions.length];
    if (!author) throw new Error('no session to post with');
    const answer = await call(url, author.token, 'POST', '/api/messages', { text: `Counting rows ${i}` });
    if (answer.status !== 201) throw new Error(`chat POST answered ${answer.status}`);
  }
  const perMessage = ((await quietRows(dataDir)) - before) / MESSAGES;
  return {
    name: `Rows stored per team chat message, ${members} members (all tables)`,
    target: '≤ 3',
    result: `${perMessage.toFixed(2)} rows`,
    met: perMessage <= 3,
    values: { perMessage, messages: MESSAGES, members },
    note: 'The message and its change-log row, whose audience (team) it holds: notices are derived, not stored per member.',
  };
}
