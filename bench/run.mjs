// `npm run bench`: Node 20 cannot run TypeScript, so this bundles bench/main.ts (and the child processes it starts:
// bench/bare-server.ts, the reference server, and bench/seed-process.ts, the PostgreSQL seeding) with esbuild and
// runs the bundle with the same arguments (`npm run bench -- --quick`). npm packages stay external; our workspaces
// (@office/*) and the api sources the bench seeds with are bundled. The bundle sits under api/node_modules, so the
// packages of those api sources resolve to api's versions (api/node_modules first), as in the server's own bundle.
import { build } from 'esbuild';
import { externalizeNpmPackages } from '../api/bundle.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = resolve(root, 'api/node_modules/.cache/bench');
const outfile = resolve(outdir, 'main.mjs');

// The browser figures measure the built app, which must speak this server's protocol: a build left from another
// commit is refused by the server (409), and every browser figure would time out on the sign-in page.
const only = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
if (!only || only.includes('browser') || only.includes('lighthouse')) {
  // A build takes seconds here; one that hangs ends the bench instead of holding it.
  const built = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: ['ignore', 2, 2],
    timeout: 5 * 60_000,
  });
  if (built.status !== 0) {
    console.error(built.error ? `Building the app failed: ${built.error.message}` : 'Building the app failed.');
    process.exit(built.status ?? 1);
  }
}

await build({
  absWorkingDir: root,
  entryPoints: ['bench/main.ts', 'bench/bare-server.ts', 'bench/seed-process.ts'],
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'inline',
  logLevel: 'warning',
  plugins: [
    externalizeNpmPackages,
    {
      // The api code finds its migrations, its bundler and the test-server cache by walking up from
      // its own file (import.meta). Bundled into node_modules/.cache it would look in the wrong place,
      // so each of our modules keeps the location of its source file, as when run from source.
      name: 'keep-source-locations',
      setup(b) {
        b.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, async (args) => {
          if (args.path.includes('/node_modules/')) return undefined;
          const source = await readFile(args.path, 'utf8');
          if (!source.includes('import.meta')) return undefined;
          const contents = source
            .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
            .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
            .replaceAll('import.meta.filename', JSON.stringify(args.path));
          return { contents, loader: ['.ts', '.mts'].includes(extname(args.path)) ? 'ts' : 'js' };
        });
      },
    },
  ],
});

// The bench gives each server its database itself. Its own api modules must speak SQLite (dialect.ts reads
// DATABASE_URL when they load): the PostgreSQL seeding runs in a child process of its own.
const { DATABASE_URL: _chosenPerServer, ...env } = process.env;
const child = spawn(process.execPath, [outfile, ...process.argv.slice(2)], { stdio: 'inherit', env });
// Ctrl-C reaches the bench through the terminal's process group; this process only waits for it.
process.on('SIGINT', () => undefined);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
