// Installs dependencies when node_modules is missing or older than package-lock.json.
// Plain Node with no imports from node_modules: it runs before anything is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

export function ensureDependencies() {
  const marker = 'node_modules/.package-lock.json';
  const stale = !existsSync(marker) || statSync('package-lock.json').mtimeMs > statSync(marker).mtimeMs;
  if (!stale) return;
  console.log(existsSync('node_modules') ? 'Updating dependencies...' : 'Installing dependencies...');
  const args = existsSync('node_modules') ? ['install', '--no-audit', '--no-fund'] : ['ci', '--no-audit', '--no-fund'];
  const result = spawnSync('npm', args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

export function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { stdio: 'inherit', env });
  return result.status ?? 1;
}
