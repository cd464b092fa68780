import { readdir, readFile, writeFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Logger, Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Text the server sends; images (png) are compressed already and gain nothing. */
const compressible = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.webmanifest', '.json', '.txt']);

/** One file and what its compressed copies weigh, in bytes. */
export interface PrecompressedFile {
  /** Relative to the folder, with forward slashes: `assets/index-abc.js`. */
  path: string;
  bytes: number;
  brotli: number | null;
  gzip: number | null;
}

async function filesUnder(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(join(dir, prefix), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      return entry.isDirectory() ? filesUnder(dir, path) : Promise.resolve([path]);
    }),
  );
  return nested.flat();
}

/**
 * Writes `<file>.br` (brotli, quality 11) and `<file>.gz` (gzip, level 9) beside every text file under
 * `dir`, for @fastify/static's `preCompressed` (api/src/plugins/static-pwa.ts). A copy that would not be
 * smaller than the file is not written, so the file itself is sent.
 */
export async function precompressDir(dir: string): Promise<PrecompressedFile[]> {
  const paths = (await filesUnder(dir)).filter((path) => compressible.has(extname(path)));
  return Promise.all(
    paths.map(async (path) => {
      const file = join(dir, path);
      const source = await readFile(file);
      const [br, gz] = await Promise.all([
        brotli(source, {
          params: {
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_SIZE_HINT]: source.length,
          },
        }),
        gzipAsync(source, { level: constants.Z_BEST_COMPRESSION }),
      ]);
      const keep = async (copy: Buffer, extension: string): Promise<number | null> => {
        if (copy.length >= source.length) return null;
        await writeFile(`${file}${extension}`, copy);
        return copy.length;
      };
      return { path, bytes: source.length, brotli: await keep(br, '.br'), gzip: await keep(gz, '.gz') };
    }),
  );
}

/**
 * Compresses the finished build. It runs after every other plugin's closeBundle because vite-plugin-pwa
 * writes sw.js there (a build of its own, then workbox injects the precache list), so a plugin that
 * compressed the bundle's own chunks would miss sw.js or keep a copy of it without that list.
 */
export function precompress(): Plugin {
  let outDir = '';
  let logger: Logger | null = null;
  return {
    name: 'office:precompress',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
      logger = config.logger;
    },
    closeBundle: {
      order: 'post',
      sequential: true,
      async handler() {
        const files = await precompressDir(outDir);
        const total = (pick: (file: PrecompressedFile) => number | null) =>
          files.reduce((sum, file) => sum + (pick(file) ?? file.bytes), 0);
        logger?.info(
          `precompressed ${files.length} files: ${kB(total((file) => file.bytes))} → brotli ${kB(total((file) => file.brotli))}, gzip ${kB(total((file) => file.gzip))}`,
        );
      },
    },
  };
}

const kB = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;
