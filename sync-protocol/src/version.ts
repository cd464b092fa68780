/** Wire protocol version; bump when any schema in this package changes shape. */
export const PROTOCOL_VERSION = 11;

/**
 * The oldest protocol version whose data a device keeps across an update: a device that bootstrapped with an older
 * one bootstraps again (its rows lack what the newer protocol carries). Protocol 10 changed no synced row and 11
 * only added the window of history (issue 46): a device from protocol 9 or 10 holds more than its window and
 * shrinks to it, without a download.
 */
export const BOOTSTRAP_COMPATIBLE_SINCE = 9;

/**
 * The header that carries the client's PROTOCOL_VERSION on every HTTP call (the socket handshake carries it
 * as `auth.protocolVersion`); a server that no longer speaks it answers 409 `client_outdated`.
 */
export const protocolVersionHeader = 'x-protocol-version';
