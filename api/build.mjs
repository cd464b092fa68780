// Bundles the server into dist/main.js and the backup command into dist/backup-cli.js (see bundle.mjs).
import { bundleServer } from './bundle.mjs';

await Promise.all([bundleServer('dist/main.js'), bundleServer('dist/backup-cli.js', { entry: 'src/backup/cli.ts' })]);
