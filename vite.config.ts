import { defineConfig, type ProxyOptions } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';
import { precompress } from './pwa/build/precompress.ts';

const apiTarget = `http://localhost:${process.env.API_PORT ?? 3001}`;

/** The API and its socket live on another port in development; the browser sees one origin. */
const proxy: Record<string, ProxyOptions> = {
  '/api': { target: apiTarget, changeOrigin: true },
  '/socket.io': { target: apiTarget, ws: true, changeOrigin: true },
};

const nodeModule = /[\\/]node_modules[\\/]/;
/** The search dialog, its index and MiniSearch: loaded when the browser is idle or search first opens. */
const searchModule = /[\\/]pwa[\\/]src[\\/]search[\\/](?!search-launcher)|[\\/]node_modules[\\/]minisearch[\\/]/;

export default defineConfig({
  root: 'pwa',
  plugins: [
    react(),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      registerType: 'prompt',
      injectRegister: false,
      injectManifest: { globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}'] },
      integration: {
        // vite-plugin-pwa 2.0 bundles sw.ts into one file with `output.inlineDynamicImports`, which Vite 8's
        // bundler (rolldown) deprecates, warning on every build, for `codeSplitting: false`: the same output.
        configureCustomSWViteBuild(swBuild) {
          const output = swBuild.build?.rollupOptions?.output;
          if (!output || Array.isArray(output)) return;
          delete output.inlineDynamicImports;
          output.codeSplitting = false;
        },
      },
      includeAssets: ['favicon.svg', 'icons/apple-touch-icon.png'],
      manifest: {
        id: '/',
        name: 'Office Workspace',
        short_name: 'Workspace',
        description: 'Your office workspace: tasks, team chat and direct messages that keep working on flaky Wi-Fi.',
        start_url: '/dashboard',
        scope: '/',
        display: 'standalone',
        orientation: 'any',
        theme_color: '#4f46e5',
        background_color: '#f5f6fa',
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
    }),
    precompress(),
  ],
  build: {
    // Relative to root: pwa/dist, which the API serves in production.
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        // A few chunks rather than dozens of small ones: what the first paint needs (React and the splash),
        // the npm libraries of the rest of the app, the app's own shared code, then one chunk per screen
        // (and one for search).
        codeSplitting: {
          groups: [
            { name: 'startup', tags: ['$initial'], priority: 3 },
            { name: 'lib', test: (id: string) => nodeModule.test(id) && !searchModule.test(id), priority: 2 },
            {
              name: 'shared',
              test: (id: string) => !/[\\/]pwa[\\/]src[\\/]screens[\\/]/.test(id) && !searchModule.test(id),
              priority: 1,
            },
            // Last, so it holds only what search alone needs; what it shares with the app stays in lib and shared.
            { name: 'search', test: searchModule, priority: 0 },
          ],
        },
      },
    },
  },
  server: { proxy },
  preview: { proxy },
});
