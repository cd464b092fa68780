import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Security: web push makes this server send requests to URLs that browsers (that is, anyone signed in) give
// it. Only public push services are reachable: never loopback, private, link-local, unique-local, shared or
// reserved ranges, cloud metadata addresses (169.254.169.254, fd00:ec2::254 are inside those), in IPv4 or
// IPv6, including IPv6 forms that carry an IPv4 address. The address is checked when the subscription is
// stored and again, resolved, right before each send, which then connects to exactly that address.

const blockedV4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT (shared), cloud metadata of some providers
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blockedV4.addSubnet(network, prefix, 'ipv4');
}

const blockedV6 = new BlockList();
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local (fd00:ec2::254 is AWS's metadata)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blockedV6.addSubnet(network, prefix, 'ipv6');
}

const loopbackV4 = new BlockList();
loopbackV4.addSubnet('127.0.0.0', 8, 'ipv4');

/** The eight 16-bit groups of an IPv6 address (with an embedded dotted IPv4 tail, too). */
function groupsOf(address: string): number[] | null {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const bytes = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${(((bytes[0] ?? 0) << 8) | (bytes[1] ?? 0)).toString(16)}:${(((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0)).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<number>(fill).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4), if any. */
function embeddedV4(address: string): string | null {
  const g = groupsOf(address);
  if (!g) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return v4(g[6] ?? 0, g[7] ?? 0); // ::ffff:a.b.c.d
  if (zero(0, 6) && ((g[6] ?? 0) !== 0 || (g[7] ?? 0) > 1)) return v4(g[6] ?? 0, g[7] ?? 0); // ::a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4(g[6] ?? 0, g[7] ?? 0); // 64:ff9b::/96
  if (g[0] === 0x2002) return v4(g[1] ?? 0, g[2] ?? 0); // 6to4
  return null;
}

/** What an address is for web push: a public one, loopback (allowed only by PUSH_ALLOW_LOOPBACK), or refused. */
export type AddressKind = 'public' | 'loopback' | 'blocked';

export function classifyAddress(address: string): AddressKind {
  const family = isIP(address);
  if (family === 4) {
    if (loopbackV4.check(address, 'ipv4')) return 'loopback';
    return blockedV4.check(address, 'ipv4') ? 'blocked' : 'public';
  }
  if (family === 6) {
    const v4 = embeddedV4(address);
    if (v4) return classifyAddress(v4);
    if (groupsOf(address)?.every((g, i) => g === (i === 7 ? 1 : 0))) return 'loopback';
    return blockedV6.check(address, 'ipv6') ? 'blocked' : 'public';
  }
  return 'blocked';
}

/** Why an endpoint is refused, in the words a person reads. */
export class EndpointRefused extends Error {}

const allowed = (kind: AddressKind, allowLoopback: boolean): boolean =>
  kind === 'public' || (kind === 'loopback' && allowLoopback);

/** A host name as an address literal, without IPv6 brackets. */
const bare = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * The address to connect to for an endpoint: https (http only to loopback when allowed), its host resolved
 * now and every address it resolves to checked; the first one is returned for the connection. Throws
 * EndpointRefused.
 */
export async function resolveEndpoint(
  endpoint: string,
  { allowLoopback }: { allowLoopback: boolean },
): Promise<{ url: URL; address: string; family: 4 | 6 }> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new EndpointRefused('The push endpoint is not a URL.');
  }
  if (url.username || url.password) throw new EndpointRefused('A push endpoint carries no credentials.');
  const host = bare(url.hostname);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else if (host === 'localhost' || host.endsWith('.localhost')) addresses = [{ address: '127.0.0.1', family: 4 }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new EndpointRefused('The push service’s address could not be found.');
    }
  }
  const kinds = addresses.map(({ address }) => classifyAddress(address));
  if (!addresses.length || !kinds.every((kind) => allowed(kind, allowLoopback)))
    throw new EndpointRefused('Push endpoints must be public push services.');
  // Plain http only for the loopback receiver the tests run.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && kinds.every((kind) => kind === 'loopback')))
    throw new EndpointRefused('Push endpoints must use https.');
  const [first] = addresses;
  if (!first) throw new EndpointRefused('The push service’s address could not be found.');
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
