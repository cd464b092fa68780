import type pg from 'pg';
import type { Db } from './client';
import { poolOf } from './postgres';

/** Whether this node is the one that does a piece of background work that must run on one node only. */
export interface Leadership {
  /** True while this node leads; on PostgreSQL it takes the lead when no node holds it. */
  leads(): Promise<boolean>;
  /** Lets another node take the lead (on close); this node does not lead again. */
  resign(): Promise<void>;
}

/**
 * One leader among the nodes for the background work named by `lock`, through a session-level advisory lock
 * held on a connection of its own: when the leading node dies, its connection and the lock go with it, and the
 * next node that asks takes over. One node on SQLite always leads.
 */
export function leadership(db: Db, lock: number): Leadership {
  const pool = poolOf(db);
  if (!pool) return { leads: () => Promise.resolve(true), resign: () => Promise.resolve() };
  let holder: pg.PoolClient | null = null;
  let resigned = false;
  const lose = (client: pg.PoolClient) => {
    if (holder !== client) return;
    holder = null;
    client.release(true);
  };
  return {
    async leads() {
      if (holder) return true;
      if (resigned) return false;
      const client = await pool.connect();
      try {
        const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1) AS held', [lock]);
        if (!rows[0]?.held) {
          client.release();
          return false;
        }
      } catch (error) {
        client.release(true);
        throw error;
      }
      // Resigned while asking (the node is closing): the lock goes back at once, with the connection.
      if (resigned) {
        client.release(true);
        return false;
      }
      holder = client;
      // A broken connection has lost the lock with it: lead again only once the lock is taken again.
      client.on('error', () => lose(client));
      return true;
    },
    async resign() {
      resigned = true;
      const client = holder;
      if (!client) return;
      holder = null;
      try {
        await client.query('SELECT pg_advisory_unlock($1)', [lock]);
      } finally {
        client.release();
      }
    },
  };
}
