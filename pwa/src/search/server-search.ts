import { useEffect, useState } from 'react';
import {
  searchResponseSchema,
  type SearchResponse,
  type SearchResultGroup,
  type ServerSearchKind,
} from '@office/sync-protocol';
import { api, ApiError, isNetworkError } from '../api/http';
import type { WorkspaceDb } from '../data/db';
import { kindTables } from './search-index';

/** Typing pauses this long before the server is asked: one request per word, not per keystroke. */
export const serverSearchDebounceMs = 250;
/** Shorter queries are the device's alone (a one-letter prefix matches most of history). */
export const serverSearchMinLength = 2;
/** Hits asked per kind at first, and per page after it. */
const firstPage = 20;
const laterPage = 50;
/** Pages asked after the first, per kind, while what the server found is all on the device already. */
const laterPagesMax = 2;

/** What the server's search is doing for the query typed. */
export type ServerSearchState =
  | { status: 'idle' }
  | { status: 'offline' }
  | { status: 'searching' }
  | { status: 'done'; answer: SearchResponse }
  /** No answer: no network, the 10 s timeout, or the server unavailable. */
  | { status: 'unreachable' }
  | { status: 'failed' };

const searchPath = (query: string, more: { kind: ServerSearchKind; before: string } | null, limit: number) =>
  `/search?${new URLSearchParams({ q: query, limit: String(limit), ...(more ?? {}) }).toString()}`;

/**
 * The server's hits for `query`. A kind whose hits are all on the device (the newest history is) is paged on a
 * little, so that the history it lacks shows up.
 */
async function searchServer(
  db: WorkspaceDb,
  query: string,
  wanted: number,
  signal: AbortSignal,
): Promise<SearchResponse> {
  const get = (more: { kind: ServerSearchKind; before: string } | null, limit: number) =>
    api.get(searchPath(query, more, limit), { answer: searchResponseSchema, signal });
  const lacking = async (group: SearchResultGroup) => {
    const held = await db.table(kindTables[group.kind]).bulkGet(group.hits.map((hit) => hit.id));
    return held.filter((row) => row === undefined).length;
  };
  const first = await get(null, firstPage);
  const groups = await Promise.all(
    first.groups.map(async (start) => {
      let group = start;
      for (let pages = 0; pages < laterPagesMax && group.next && (await lacking(group)) < wanted; pages++) {
        const page = (await get({ kind: group.kind, before: group.next }, laterPage)).groups[0];
        if (!page) break;
        group = { kind: group.kind, hits: [...group.hits, ...page.hits], next: page.next };
      }
      return group;
    }),
  );
  return { groups };
}

/** What an error of the search means to the person: the server out of reach, or a refusal. */
const failureOf = (error: unknown): 'unreachable' | 'failed' =>
  isNetworkError(error) || (error instanceof ApiError && error.status >= 500) ? 'unreachable' : 'failed';

/**
 * The server's full-text search of `query` (trimmed), online only: asked once typing pauses, each newer query
 * cancelling the request of the one before (AbortController), bounded by the HTTP client's timeout. Offline it
 * asks nothing and says so.
 */
export function useServerSearch(db: WorkspaceDb, query: string, online: boolean, wanted: number): ServerSearchState {
  const [result, setResult] = useState<{ query: string; state: ServerSearchState } | null>(null);
  const enabled = online && query.length >= serverSearchMinLength;

  useEffect(() => {
    if (!enabled) return undefined;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      searchServer(db, query, wanted, controller.signal).then(
        (answer) => setResult({ query, state: { status: 'done', answer } }),
        (error: unknown) => {
          if (controller.signal.aborted) return;
          if (failureOf(error) === 'failed') console.error('The server search failed', error);
          setResult({ query, state: { status: failureOf(error) } });
        },
      );
    }, serverSearchDebounceMs);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [db, query, enabled, wanted]);

  if (!online) return { status: 'offline' };
  if (query.length < serverSearchMinLength) return { status: 'idle' };
  return result?.query === query ? result.state : { status: 'searching' };
}
