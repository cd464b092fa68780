import { constants } from 'node:zlib';
import type { FastifyCompressOptions } from '@fastify/compress';

/** Answers smaller than this go as they are: compressing them would cost more CPU than the bytes it saves. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * How API answers are compressed (@fastify/compress, registered in the /api scope only: the PWA's files are
 * precompressed at build time and sent as they are). Brotli at quality 4, the plugin's own default for dynamic
 * answers: a 1 000-message pull page of 551 kB went to 64 kB in about 30 ms, against 63 kB in 48 ms at quality 5
 * and 51 kB in 5.7 s at 11 (measured on this project's 2-core machine); gzip (67 kB) for clients without brotli.
 * Large answers are compressed as a stream, off the event loop. Request bodies are not decompressed: what a
 * client sends stays bounded by the body limit as sent.
 */
export const apiCompression: FastifyCompressOptions = {
  encodings: ['br', 'gzip'],
  threshold: COMPRESSION_THRESHOLD_BYTES,
  brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  zlibOptions: { level: 6 },
  globalDecompression: false,
};
