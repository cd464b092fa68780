import { resolve } from 'node:path';
import { describeBackup, takeBackup } from './backup';
import { restoreBackup } from './restore';

/**
 * `npm run backup [-- --into DIR]` and `npm run restore -- BACKUP [--force]`. DATA_DIR and DATABASE_URL name the
 * workspace as they do for the server; the configuration is not loaded, which would make a secret in an empty
 * DATA_DIR before the backup's could be restored there.
 */
const usage = `Usage:
  npm run backup [-- --into DIR]        a backup of the workspace into DIR (BACKUP_DIR, else ./backups)
  npm run restore -- BACKUP [--force]   the backup folder BACKUP into DATA_DIR (and DATABASE_URL's database);
                                        --force replaces a workspace that is there (its files are kept aside)`;

async function main(args: string[]): Promise<void> {
  const [command, ...rest] = args;
  const dataDir = resolve(process.env.DATA_DIR ?? './data');
  const databaseUrl = process.env.DATABASE_URL || null;
  if (command === 'backup') {
    const intoAt = rest.indexOf('--into');
    const into = resolve(intoAt >= 0 ? (rest[intoAt + 1] ?? '') : (process.env.BACKUP_DIR ?? './backups'));
    const { dir, manifest } = await takeBackup({ dataDir, databaseUrl }, into);
    process.stdout.write(`${describeBackup(dir, manifest)}\n`);
    return;
  }
  if (command === 'restore') {
    const from = rest.find((arg) => !arg.startsWith('--'));
    if (!from) throw new Error(`Name the backup folder to restore.\n${usage}`);
    const { manifest, setAside, floor } = await restoreBackup(resolve(from), {
      dataDir,
      databaseUrl,
      force: rest.includes('--force'),
    });
    process.stdout.write(
      [
        `Restored the backup of ${manifest.takenAt} into ${databaseUrl ? 'the database and ' : ''}${dataDir}.`,
        setAside ? `The workspace that was there is kept in ${setAside}.` : '',
        `Devices download the workspace again on their next sync (change log from ${floor}); writes they queued are sent then.`,
        'Start the server with npm start.',
      ]
        .filter(Boolean)
        .join('\n') + '\n',
    );
    return;
  }
  throw new Error(usage);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
