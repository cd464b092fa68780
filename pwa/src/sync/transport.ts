import type { PullQuery, PullResponse, PushRequest, PushResponse } from '@office/sync-protocol';
import { api } from '../api/http';

/** How the engine reaches the server. */
export interface SyncTransport {
  push(request: PushRequest): Promise<PushResponse>;
  pull(query: PullQuery): Promise<PullResponse>;
}

export const httpTransport: SyncTransport = {
  push: (request) => api.post<PushResponse>('/sync/push', request),
  pull: ({ clientId, cursor, limit }) =>
    api.get<PullResponse>(`/sync/pull?clientId=${clientId}&cursor=${cursor}&limit=${limit}`),
};
