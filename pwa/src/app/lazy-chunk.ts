import { createElement, lazy, type ComponentType } from 'react';

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

/** A component in a chunk of its own, and a way to load that chunk before it is rendered. */
export interface LazyChunk<P extends object = object> {
  /** Renders the component straight away once the chunk has loaded; before that it suspends while loading. */
  Component: ComponentType<P>;
  /** Loads the chunk (once; a failed load is tried again by the next call); rejects with a ChunkLoadError. */
  load(): Promise<unknown>;
}

/**
 * `load` imports the chunk's module and picks its component. A failure becomes a ChunkLoadError: thrown while
 * rendering, for the nearest error element (app/route-error.tsx) to show, or by `load()` to its caller.
 */
export function lazyChunk<P extends object = object>(
  chunk: string,
  load: () => Promise<ComponentType<P>>,
): LazyChunk<P> {
  let loading: Promise<{ default: ComponentType<P> }> | null = null;
  let loaded: ComponentType<P> | null = null;
  const start = (): Promise<{ default: ComponentType<P> }> => {
    loading ??= load().then(
      (component) => {
        loaded = component;
        return { default: component };
      },
      (error: unknown) => {
        loading = null;
        throw new ChunkLoadError(chunk, 'error', failedUrl(error) ?? chunk, { cause: error });
      },
    );
    return loading;
  };
  const Lazy = lazy(start);
  // React.lazy suspends on its first render even when the chunk is already here (it waits for the promise),
  // and React then keeps the fallback on screen for at least 300 ms: a "Loading..." flash after every load.
  const Component = (props: P) => (loaded ? createElement(loaded, props) : createElement(Lazy, props));
  return { Component, load: start };
}
