// What npm start and npm run start:cluster do first: install what is missing, then build the server and the PWA.
import { ensureDependencies, run } from './ensure-deps.mjs';

export function installAndBuild() {
  ensureDependencies();
  if (run('npm', ['run', 'build', '--silent']) !== 0) process.exit(1);
}
