// Bundles the server into dist/main.js (see bundle.mjs).
import { bundleServer } from './bundle.mjs';

await bundleServer('dist/main.js');
