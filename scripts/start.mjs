// npm start: install what is missing, build, then run the server (it migrates and seeds on start).
import { ensureDependencies, run } from './ensure-deps.mjs';

ensureDependencies();
if (run('npm', ['run', 'build', '--silent']) !== 0) process.exit(1);
await import('../api/dist/main.js');
