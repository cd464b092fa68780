/** Wire protocol version; bump when any schema in this package changes shape. */
export const PROTOCOL_VERSION = 5;
