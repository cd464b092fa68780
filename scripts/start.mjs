// npm start: install what is missing, build, then run the server (it migrates and seeds on start).
import { installAndBuild } from './install-and-build.mjs';

await installAndBuild();
console.log('Starting the server (on an empty database it seeds the demo workspace first)...');
await import('../api/dist/main.js');
