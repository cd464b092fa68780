// npm start: install what is missing, build, then run the server (it migrates and seeds on start).
import { installAndBuild } from './install-and-build.mjs';

installAndBuild();
await import('../api/dist/main.js');
