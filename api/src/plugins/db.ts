import fp from 'fastify-plugin';
import type { Config } from '../config';
import type { Db } from '../db/client';
import { openWorkspaceDatabase } from '../db/open';
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
    /** Runs startup work (the first seed) on one node at a time. */
    exclusively: <T>(work: () => Promise<T>) => Promise<T>;
    /** Runs a command in one transaction with the other writes of this turn (see WriteBatcher). */
    write: WriteBatcher['run'];
  }
}

export const dbPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    const { db, durable, flushIdle, exclusively, close } = await openWorkspaceDatabase(config);
    app.decorate('exclusively', exclusively);
    app.decorate('durable', durable);
    // A write's answer leaves only once the write is on disk; reads never wait.
    app.addHook('onSend', async (request, _reply, payload) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') await durable();
      return payload;
    });
    app.decorate('config', config);
    app.decorate('db', db);
    const publish = async (pending: PendingEffects): Promise<void> => {
      try {
        await app.realtime.publish(pending.changes, pending.announcements);
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
    // Side effects wait until the write is on disk (SQLite's group fsync): nobody hears of a write that a power cut
    // could still undo. One
    // chain keeps them in commit order (a later commit is never durable before an earlier one).
    let published: Promise<void> = Promise.resolve();
    app.decorate('flush', (pending) => {
      const nothing =
        !pending.changes.length && !pending.announcements.length && !pending.push && !pending.effects.length;
      if (nothing) return;
      published = Promise.all([published, durable()]).then(
        () => publish(pending),
        (error: unknown) => app.log.error({ err: error }, 'a commit did not reach the disk; its effects are dropped'),
      );
    });
    const batcher = new WriteBatcher(db, app.flush, flushIdle, (size) => app.metrics.writeBatch(size));
    app.decorate('write', (actor, command, rawArgs) => batcher.run(actor, command, rawArgs));
    app.addHook('onClose', close);
  },
  { name: 'db', dependencies: ['metrics'] },
);
