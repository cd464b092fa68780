// Bundles the server entry into one ES module. npm packages stay external (resolved from node_modules
// at run time); our own workspaces (sync-protocol) are TypeScript source and get bundled in.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const apiDir = fileURLToPath(new URL('.', import.meta.url));

/** npm packages stay imports of the bundle; our workspaces (@office/*) are bundled from source. */
export const externalizeNpmPackages = {
  name: 'externalize-npm-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@office/') ? undefined : { path: args.path, external: true },
    );
  },
};

/** Writes the bundle of `entry` (the server's by default) to `outfile` (absolute, or relative to api/). */
export async function bundleServer(outfile, { sourcemap = true, entry = 'src/main.ts' } = {}) {
  await build({
    absWorkingDir: apiDir,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap,
    logLevel: 'warning',
    plugins: [externalizeNpmPackages],
  });
}
