import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/**
 * A code chunk that could not be loaded (spec section 8): named ChunkLoadError, its message "Loading chunk
 * <name> failed." plus the type and URL, as the bundlers that coined the name write it.
 */
export class ChunkLoadError extends Error {
  override readonly name = 'ChunkLoadError';

  constructor(
    /** The chunk, e.g. `dashboard-screen`. */
    readonly chunk: string,
    /** How the load failed: `error`, the request for the file failed. */
    readonly type: 'error',
    /** The chunk's URL, or its name when the browser did not say which file failed. */
    readonly request: string,
    options?: ErrorOptions,
  ) {
    super(`Loading chunk ${chunk} failed.\n(${type}: ${request})`, options);
  }
}

/** The URL a browser names in a failed dynamic import ("Failed to fetch dynamically imported module: <url>"). */
function failedUrl(error: unknown): string | null {
  const message = error instanceof Error ? error.message : String(error);
  return /(https?:\/\/\S+)/.exec(message)?.[1] ?? null;
}

/** A component in a chunk of its own, and a way to start loading that chunk before it is rendered. */
export interface LazyChunk<P extends object = object> {
  Component: LazyExoticComponent<ComponentType<P>>;
  /** Starts the download (once); a failed one is tried again by the next call. */
  preload(): Promise<unknown>;
}

/**
 * `load` imports the chunk's module and picks its component. A failure becomes a ChunkLoadError, thrown
 * while rendering, for the nearest error element (app/load-failure.tsx) to show.
 */
export function lazyChunk<P extends object = object>(
  chunk: string,
  load: () => Promise<ComponentType<P>>,
): LazyChunk<P> {
  let loading: Promise<{ default: ComponentType<P> }> | null = null;
  const start = (): Promise<{ default: ComponentType<P> }> => {
    loading ??= load().then(
      (component) => ({ default: component }),
      (error: unknown) => {
        loading = null;
        throw new ChunkLoadError(chunk, 'error', failedUrl(error) ?? chunk, { cause: error });
      },
    );
    return loading;
  };
  return {
    Component: lazy(start),
    preload: () => start().catch(() => undefined),
  };
}
