// npm run backup / npm run restore: install what is missing, bundle the server's backup command, run it.
import { ensureDependencies, run } from './ensure-deps.mjs';

ensureDependencies();
if (run('npm', ['run', 'build', '-w', '@office/api', '--silent']) !== 0) process.exit(1);
process.exit(run(process.execPath, ['api/dist/backup-cli.js', ...process.argv.slice(2)]));
