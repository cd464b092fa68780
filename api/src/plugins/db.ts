import fp from 'fastify-plugin';
import { join } from 'node:path';
import type { Config } from '../config';
import { openDatabase, type Db } from '../db/client';
import { GroupCommit, walFlusher } from '../db/group-commit';
import type { EffectsFlusher, PendingEffects } from '../domain/commands';
import { WriteBatcher } from '../domain/write-batcher';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    /** Publishes a committed command and runs its effects once it is on disk, in commit order. */
    flush: EffectsFlusher;
    /** Resolves once every write committed so far is on disk; wait for it before acknowledging one. */
    durable(): Promise<void>;
    /** Runs a command in one transaction with the other writes of this turn (see WriteBatcher). */
    write: WriteBatcher['run'];
  }
}

export const dbPlugin = fp<{ config: Config }>(
  (app, { config }, done) => {
    const file = join(config.dataDir, 'workspace.db');
    const db = openDatabase(file);
    const wal = walFlusher(file);
    const totalChanges = db.$client.prepare('SELECT total_changes()').pluck();
    const groupCommit = new GroupCommit(() => totalChanges.get() as number, wal.flush);
    app.decorate('durable', () => groupCommit.durable());
    // A write's answer leaves only once the write is on disk; reads never wait.
    app.addHook('onSend', async (request, _reply, payload) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') await groupCommit.durable();
      return payload;
    });
    app.decorate('config', config);
    app.decorate('db', db);
    const publish = async (pending: PendingEffects): Promise<void> => {
      try {
        await app.realtime.publish(pending.changes);
        for (const announcement of pending.announcements) app.realtime.announce(announcement);
      } catch (error) {
        app.log.error({ err: error }, 'publishing a committed change failed');
      }
      if (pending.push) app.push.wake();
      for (const effect of pending.effects) {
        try {
          effect();
        } catch (error) {
          app.log.error({ err: error }, 'after-commit effect failed');
        }
      }
    };
    // Side effects wait for the group fsync: nobody hears of a write that a power cut could still undo. One
    // chain keeps them in commit order (a later commit is never durable before an earlier one).
    let published: Promise<void> = Promise.resolve();
    app.decorate('flush', (pending) => {
      const nothing =
        !pending.changes.length && !pending.announcements.length && !pending.push && !pending.effects.length;
      if (nothing) return;
      const durable = groupCommit.durable();
      published = Promise.all([published, durable]).then(
        () => publish(pending),
        (error: unknown) => app.log.error({ err: error }, 'a commit did not reach the disk; its effects are dropped'),
      );
    });
    const batcher = new WriteBatcher(db, app.flush);
    app.decorate('write', (actor, command, rawArgs) => batcher.run(actor, command, rawArgs));
    app.addHook('onClose', (_instance, hookDone) => {
      wal.close();
      db.$client.close();
      hookDone();
    });
    done();
  },
  { name: 'db' },
);
