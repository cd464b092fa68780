// Installs dependencies when node_modules is missing or older than package-lock.json.
// Plain Node with no imports from node_modules: it runs before anything is installed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';

/** How often a long install says it is still at work. */
const TICK_MS = 60_000;

/** "3 min 52 s", "42 s". */
export function duration(ms) {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** How many packages package-lock.json installs on this machine (the other platforms' binaries left out). */
function packageCount() {
  const { packages } = JSON.parse(readFileSync('package-lock.json', 'utf8'));
  return Object.entries(packages).filter(
    ([path, entry]) =>
      path.includes('node_modules/') &&
      !entry.link &&
      (!entry.os || entry.os.includes(process.platform)) &&
      (!entry.cpu || entry.cpu.includes(process.arch)),
  ).length;
}

/** Runs a command with its output shown; resolves with its exit code, saying every minute that it is still at work. */
function runTicking(command, args, still) {
  const started = Date.now();
  const child = spawn(command, args, { stdio: 'inherit' });
  const ticker = setInterval(() => console.log(`  ${still} (${duration(Date.now() - started)} so far)`), TICK_MS);
  return new Promise((done) => {
    child.once('error', (error) => {
      console.error(`${command} could not be run: ${error.message}`);
      done(1);
    });
    child.once('close', (code) => done(code ?? 1));
  }).finally(() => clearInterval(ticker));
}

export async function ensureDependencies() {
  const marker = 'node_modules/.package-lock.json';
  const stale = !existsSync(marker) || statSync('package-lock.json').mtimeMs > statSync(marker).mtimeMs;
  if (!stale) return;
  const fresh = !existsSync('node_modules');
  const started = Date.now();
  if (fresh) {
    // The figures of README.md ("The two commands"), measured on a fresh clone.
    const about = Math.round(packageCount() / 10) * 10;
    console.log(
      `Installing dependencies: about ${about} packages from the npm registry, and better-sqlite3 is compiled from\n` +
        "source (SQLite's C code) where no prebuilt copy can be downloaded. On a 2-core machine this took from about\n" +
        '4 minutes (quiet) to 19 (busy with other work). npm prints little meanwhile: a line says each minute that it\n' +
        'is still at work.',
    );
  } else {
    console.log('Updating dependencies (package-lock.json has changed)...');
  }
  const args = fresh ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'];
  const code = await runTicking('npm', args, 'still installing');
  if (code !== 0) process.exit(code);
  console.log(`Dependencies installed in ${duration(Date.now() - started)}.`);
}

export function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { stdio: 'inherit', env });
  return result.status ?? 1;
}
