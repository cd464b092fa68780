// Bundles the server into dist/main.js. npm packages stay external (resolved from node_modules at run
// time); our own workspaces (sync-protocol) are TypeScript source and get bundled in.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/main.ts'],
  outfile: 'dist/main.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [
    {
      name: 'externalize-npm-packages',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          args.path.startsWith('@office/') ? undefined : { path: args.path, external: true },
        );
      },
    },
  ],
});
