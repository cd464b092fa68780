import { describe, expect, test } from 'vitest';
import { GroupCommit } from './group-commit';

/** A disk whose fsyncs finish when the test says so, counting the changes each one covered. */
function slowDisk() {
  let changes = 0;
  const flushes: { coveredUpTo: number; finish: () => void }[] = [];
  const groupCommit = new GroupCommit(
    () => changes,
    () => new Promise<void>((finish) => flushes.push({ coveredUpTo: changes, finish })),
  );
  return { groupCommit, flushes, write: () => (changes += 1) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('group commit', () => {
  test('nothing written since the last flush: durable at once, no fsync', async () => {
    const { groupCommit, flushes } = slowDisk();
    await groupCommit.durable();
    expect(flushes).toHaveLength(0);
  });

  test('idle: at once with no fsync running, else once the running one and the one queued behind it have ended', async () => {
    const { groupCommit, flushes, write } = slowDisk();
    await groupCommit.idle();

    write();
    void groupCommit.durable();
    write();
    void groupCommit.durable();
    let idle = false;
    void groupCommit.idle().then(() => (idle = true));
    flushes[0]?.finish();
    await settle();
    expect(flushes).toHaveLength(2);
    expect(idle).toBe(false);
    flushes[1]?.finish();
    await settle();
    expect(idle).toBe(true);
  });

  test('writes committed together share one fsync', async () => {
    const { groupCommit, flushes, write } = slowDisk();
    write();
    const first = groupCommit.durable();
    const second = groupCommit.durable();
    expect(flushes).toHaveLength(1);
    flushes[0]?.finish();
    await Promise.all([first, second]);
    await groupCommit.durable();
    expect(flushes).toHaveLength(1);
  });

  test('a write committed while an fsync runs waits for the next fsync, shared by everyone who came meanwhile', async () => {
    const { groupCommit, flushes, write } = slowDisk();
    write();
    let firstDone = false;
    void groupCommit.durable().then(() => (firstDone = true));
    write();
    let laterDone = false;
    const later = groupCommit.durable().then(() => (laterDone = true));
    write();
    const latest = groupCommit.durable();

    flushes[0]?.finish();
    await settle();
    expect(firstDone).toBe(true);
    expect(laterDone).toBe(false);
    expect(flushes).toHaveLength(2);
    expect(flushes[1]?.coveredUpTo).toBe(3);

    flushes[1]?.finish();
    await Promise.all([later, latest]);
    expect(flushes).toHaveLength(2);
  });

  test('a failed fsync fails the writes waiting on it, and the next write tries again', async () => {
    let changes = 0;
    let attempts = 0;
    const groupCommit = new GroupCommit(
      () => changes,
      async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('EIO');
      },
    );
    changes += 1;
    await expect(groupCommit.durable()).rejects.toThrow('EIO');
    changes += 1;
    await expect(groupCommit.durable()).resolves.toBeUndefined();
    expect(attempts).toBe(2);
  });
});
