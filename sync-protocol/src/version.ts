/** Wire protocol version; bump when any schema in this package changes shape. */
export const PROTOCOL_VERSION = 11;

/**
 * The header that carries the client's PROTOCOL_VERSION on every HTTP call (the socket handshake carries it
 * as `auth.protocolVersion`); a server that no longer speaks it answers 409 `client_outdated`.
 */
export const protocolVersionHeader = 'x-protocol-version';
