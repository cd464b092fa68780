export function bundleServer(outfile: string, options?: { sourcemap?: boolean }): Promise<void>;
