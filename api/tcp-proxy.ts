import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy in front of a server (PostgreSQL), for the tests and the bench. */
export interface TcpProxy {
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  /**
   * Stops forwarding, both ways, while every connection stays open: a link cut without a reset. What was sent waits
   * in the sockets' buffers, as it would in a network's, and goes on once the link is restored.
   */
  cut(): void;
  /** Forwards again what waited and what comes. */
  restore(): void;
  close(): Promise<void>;
}

/**
 * Forwards every connection to `target`; with `delayMs`, each chunk waits that long each way (a network's latency:
 * timers of one duration fire in the order they were set, so the bytes keep their order).
 */
export async function startTcpProxy(
  target: { host: string; port: number },
  options: { delayMs?: number } = {},
): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let forwarding = true;
  // A chunk already on its way (delayed) arrives; a paused socket hands over nothing more until it is resumed.
  const pipe = (from: Socket, to: Socket) =>
    from.on('data', (chunk) => {
      if (options.delayMs) setTimeout(() => to.write(chunk), options.delayMs);
      else to.write(chunk);
    });
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
      if (!forwarding) socket.pause();
    }
    pipe(client, upstream);
    pipe(upstream, client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    via: (url) => {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(port);
      return proxied.toString();
    },
    cut: () => {
      forwarding = false;
      for (const socket of sockets) socket.pause();
    },
    restore: () => {
      forwarding = true;
      for (const socket of sockets) socket.resume();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The host and port of a connection URL (a PostgreSQL URL's server). */
export const serverOf = (url: string): { host: string; port: number } => {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || 5432) };
};
