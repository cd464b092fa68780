import {
  pullResponseSchema,
  pushResponseSchema,
  uploadOutcomeResponseSchema,
  windowCountsSchema,
  type MutationOutcome,
  type PullQuery,
  type PullResponse,
  type PushRequest,
  type PushResponse,
  type SendChatFilesArgs,
  type SendDirectFilesArgs,
  type WindowCounts,
  type WindowCountsQuery,
} from '@office/sync-protocol';
import { api } from '../api/http';
import type { OutboxEntry } from '../data/db';

/** How the engine reaches the server. */
export interface SyncTransport {
  push(request: PushRequest): Promise<PushResponse>;
  pull(query: PullQuery): Promise<PullResponse>;
  /** A queued message with files, sent as multipart with its client and mutation ids. */
  upload(clientId: string, entry: OutboxEntry): Promise<MutationOutcome | 'gap'>;
}

/** Where the device asks what lies before the edges of its window (issue 46). */
export interface WindowCountsSource {
  windowCounts(query: WindowCountsQuery): Promise<WindowCounts>;
}

/** The multipart body of a queued message with files. */
export function uploadForm(clientId: string, entry: OutboxEntry): FormData {
  // The entry's args passed its schema (chat.sendFiles or dm.sendFiles) when it was queued.
  const args = entry.args as SendChatFilesArgs | SendDirectFilesArgs;
  const form = new FormData();
  // The sync fields come first: the server reads them before it stores the files.
  form.append('clientId', clientId);
  form.append('mutationId', String(entry.id));
  form.append('at', entry.at);
  form.append('id', args.id);
  form.append('text', args.text ?? '');
  for (const file of args.files) form.append('files', file.blob, file.name);
  return form;
}

export const httpTransport: SyncTransport & WindowCountsSource = {
  // Answers are parsed with the protocol's schemas: a server that answers something else is a failed call
  // (bad_answer, retried with backoff), never rows written to IndexedDB on trust.
  push: (request) => api.post('/sync/push', request, { answer: pushResponseSchema }),
  pull: ({ clientId, cursor, limit, snapshot }) =>
    api.get(
      `/sync/pull?clientId=${clientId}&cursor=${cursor}&limit=${limit}${snapshot ? `&snapshot=${snapshot}` : ''}`,
      { answer: pullResponseSchema },
    ),
  windowCounts: (query) => api.post('/sync/window-counts', query, { answer: windowCountsSchema }),
  async upload(clientId, entry) {
    // The entry's args passed its schema (chat.sendFiles or dm.sendFiles) when it was queued.
    const args = entry.args as SendChatFilesArgs | SendDirectFilesArgs;
    const url =
      entry.name === 'dm.sendFiles'
        ? `/direct-messages/conversations/${(args as SendDirectFilesArgs).conversationId}/messages`
        : '/messages/upload';
    const answer = await api.post(url, uploadForm(clientId, entry), {
      timeoutMs: 120_000,
      answer: uploadOutcomeResponseSchema,
    });
    return answer.outcome;
  },
};
