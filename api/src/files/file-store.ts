import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { makePrivateDir, privateFileMode } from '../private-files';

/**
 * Where uploaded files live, by name: chat and direct-message attachments, profile photos. Uploads and
 * avatars reach their bytes only through this, so a store every server node reaches (object storage) can
 * take the place of the folder under DATA_DIR without touching them.
 */
export interface FileStore {
  /** Stores the bytes under `name`, which must be new; answers how many were stored. A failed write leaves nothing. */
  put(name: string, bytes: Readable | Uint8Array): Promise<number>;
  /** The file's bytes, or null when there is none by that name. */
  open(name: string): Readable | null;
  /** Removes the file; one that is already gone is not an error. */
  remove(name: string): Promise<void>;
}

/** A folder of DATA_DIR, private to the server (files 0600, the folder 0700). */
class FolderFileStore implements FileStore {
  constructor(private readonly dir: string) {
    makePrivateDir(dir);
  }

  async put(name: string, bytes: Readable | Uint8Array): Promise<number> {
    const path = join(this.dir, name);
    try {
      if (bytes instanceof Uint8Array) {
        await writeFile(path, bytes, { flag: 'wx', mode: privateFileMode });
        return bytes.byteLength;
      }
      await pipeline(bytes, createWriteStream(path, { flags: 'wx', mode: privateFileMode }));
      return (await stat(path)).size;
    } catch (error) {
      // A name that was taken belongs to another file: only a write of ours is undone.
      if ((error as { code?: string }).code !== 'EEXIST') await this.remove(name);
      throw error;
    }
  }

  open(name: string): Readable | null {
    const path = join(this.dir, name);
    return existsSync(path) ? createReadStream(path) : null;
  }

  async remove(name: string): Promise<void> {
    await unlink(join(this.dir, name)).catch(() => undefined);
  }
}

/** The store of one kind of file: the one place that decides where files live. */
export const fileStore = (dataDir: string, kind: 'uploads' | 'avatars'): FileStore =>
  new FolderFileStore(join(dataDir, kind));
