import { and, eq, isNull, ne } from 'drizzle-orm';
import type { PresenceStatus } from '@office/sync-protocol';
import type { Db } from '../db/client';
import { transaction } from '../db/transaction';
import { users } from '../db/schema';

/**
 * Who is connected, by user. Presence is live state, not history: it updates the user's row
 * without a change-log entry, and travels as the spec's presence events. With several nodes the row is what
 * they share: a person is online while connected to any node.
 */
export class PresenceTracker {
  private readonly sockets = new Map<string, Set<string>>();
  /**
   * Each person's status writes, in the order they were asked for. On PostgreSQL two transactions run side by
   * side and may commit in either order: a disconnect's 'offline' must not land after the reconnect's 'online'.
   */
  private readonly writes = new Map<string, Promise<unknown>>();

  /** `elsewhere`: whether the person has a socket on another node (several nodes); one node has no elsewhere. */
  constructor(
    private readonly db: Db,
    private readonly elsewhere: (userId: string) => Promise<boolean> = () => Promise.resolve(false),
  ) {}

  /** Resolves true when this is the user's first open socket, once their status is stored. */
  async connect(userId: string, socketId: string): Promise<boolean> {
    const set = this.sockets.get(userId) ?? new Set<string>();
    const first = set.size === 0;
    set.add(socketId);
    this.sockets.set(userId, set);
    if (first) await this.store(userId, 'online');
    return first;
  }

  /** Returns the last-seen time when this was the user's last open socket, on every node. */
  async disconnect(userId: string, socketId: string): Promise<string | null> {
    const set = this.sockets.get(userId);
    if (!set?.delete(socketId) || set.size > 0) return null;
    this.sockets.delete(userId);
    return this.inTurn(userId, async () => {
      // Asking the other nodes takes a moment; a new socket of the person's on this one may have come meanwhile.
      if ((await this.elsewhere(userId)) || this.isOnline(userId)) return null;
      return this.write(userId, 'offline');
    });
  }

  /**
   * Several nodes: everyone marked present who has no socket on any node goes offline (a node that died left
   * them marked). Returns who went offline, with the time.
   */
  async reconcile(connected: ReadonlySet<string>): Promise<{ userId: string; lastSeen: string }[]> {
    const lastSeen = new Date().toISOString();
    const marked = await this.db.select({ id: users.id }).from(users).where(ne(users.status, 'offline'));
    const gone = marked.map((row) => row.id).filter((id) => !connected.has(id) && !this.isOnline(id));
    if (!gone.length) return [];
    await transaction(this.db, async (tx) => {
      for (const id of gone)
        await tx
          .update(users)
          .set({ status: 'offline', lastSeen })
          .where(and(eq(users.id, id), ne(users.status, 'offline')));
    });
    return gone.map((userId) => ({ userId, lastSeen }));
  }

  isOnline(userId: string): boolean {
    return (this.sockets.get(userId)?.size ?? 0) > 0;
  }

  onlineUserIds(): string[] {
    return [...this.sockets.keys()];
  }

  /** Everyone online or away now, for a socket that has just connected. */
  async present(): Promise<{ userId: string; status: PresenceStatus }[]> {
    return await this.db
      .select({ userId: users.id, status: users.status })
      .from(users)
      .where(and(ne(users.status, 'offline'), isNull(users.deactivatedAt)));
  }

  /** Stores a status with the time it was seen, after the person's earlier writes; returns that time. */
  store(userId: string, status: PresenceStatus): Promise<string> {
    return this.inTurn(userId, () => this.write(userId, status));
  }

  /** Resolves once every status write asked for so far is stored (or failed): before the database closes. */
  async settled(): Promise<void> {
    while (this.writes.size) await Promise.allSettled(this.writes.values());
  }

  /** Runs `work` once the person's earlier status writes are done. */
  private async inTurn<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const turn = (this.writes.get(userId) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.writes.set(userId, turn);
    try {
      return await turn;
    } finally {
      if (this.writes.get(userId) === turn) this.writes.delete(userId);
    }
  }

  private async write(userId: string, status: PresenceStatus): Promise<string> {
    const lastSeen = new Date().toISOString();
    await transaction(this.db, async (tx) => {
      await tx.update(users).set({ status, lastSeen }).where(eq(users.id, userId));
    });
    return lastSeen;
  }

  /** On start nobody is connected, whatever the last run left behind. */
  async resetAll(): Promise<void> {
    await transaction(this.db, async (tx) => {
      await tx.update(users).set({ status: 'offline' }).where(eq(users.status, 'online'));
      await tx.update(users).set({ status: 'offline' }).where(eq(users.status, 'away'));
    });
  }
}
