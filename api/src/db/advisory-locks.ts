/**
 * The PostgreSQL advisory locks of the workspace, in one place so no two purposes share a key (a lock's key is
 * any 64-bit number, and every node and connection of one database sees the same keys).
 */
export const advisoryLocks = {
  /** Migrations and the first seed: nodes that start together take turns. */
  startup: 0x0ff1ce01,
  /** Held by the node that runs the web push queue (see leadership.ts). */
  pushQueue: 0x0ff1ce03,
} as const;
