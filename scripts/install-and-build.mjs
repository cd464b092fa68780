// What npm start and npm run start:cluster do first: install what is missing, then build the server and the PWA.
import { duration, ensureDependencies, run } from './ensure-deps.mjs';

export async function installAndBuild() {
  await ensureDependencies();
  const started = Date.now();
  console.log('Building the server and the app (under a minute)...');
  if (run('npm', ['run', 'build', '--silent']) !== 0) process.exit(1);
  console.log(`Built in ${duration(Date.now() - started)}.`);
}
