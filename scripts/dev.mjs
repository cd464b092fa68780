// npm run dev: the API on API_PORT (default 3001) and the Vite dev server, which proxies /api and /socket.io to it.
import { spawn } from 'node:child_process';
import { ensureDependencies, run } from './ensure-deps.mjs';

await ensureDependencies();
const apiPort = process.env.API_PORT ?? '3001';
if (run('npm', ['run', 'build', '-w', '@office/api', '--silent']) !== 0) process.exit(1);
const api = spawn('node', ['api/dist/main.js'], { stdio: 'inherit', env: { ...process.env, PORT: apiPort } });
const vite = spawn('npx', ['vite'], { stdio: 'inherit', env: { ...process.env, API_PORT: apiPort } });
const stop = () => {
  api.kill('SIGTERM');
  vite.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
api.on('exit', stop);
vite.on('exit', stop);
