/** Wire protocol version; bump when any schema in this package changes shape. */
export const PROTOCOL_VERSION = 12;

/**
 * The oldest protocol version whose data a device keeps across an update: a device that bootstrapped with an older
 * one bootstraps again (its rows lack what the newer protocol carries). Protocol 10 changed no synced row and 11
 * only added the window of history (issue 46): a device from protocol 9 or 10 holds more than its window and
 * shrinks to it, without a download. Protocol 12 made the cursor a place of the server's choosing (issue 42: a
 * pair on PostgreSQL): an older device's numeric cursor is the same place on SQLite, and a PostgreSQL server answers
 * it with a bootstrap.
 */
export const BOOTSTRAP_COMPATIBLE_SINCE = 9;

/**
 * The header that carries the client's PROTOCOL_VERSION on every HTTP call (the socket handshake carries it
 * as `auth.protocolVersion`); a server that no longer speaks it answers 409 `client_outdated`.
 */
export const protocolVersionHeader = 'x-protocol-version';
