import type { Plugin } from 'esbuild';

export const externalizeNpmPackages: Plugin;
export function bundleServer(outfile: string, options?: { sourcemap?: boolean; entry?: string }): Promise<void>;
