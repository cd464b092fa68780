import type {
  MutationOutcome,
  PullQuery,
  PullResponse,
  PushRequest,
  PushResponse,
  SendChatFilesArgs,
  SendDirectFilesArgs,
  UploadOutcomeResponse,
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

export const httpTransport: SyncTransport = {
  push: (request) => api.post<PushResponse>('/sync/push', request),
  pull: ({ clientId, cursor, limit, snapshot }) =>
    api.get<PullResponse>(
      `/sync/pull?clientId=${clientId}&cursor=${cursor}&limit=${limit}${snapshot ? `&snapshot=${snapshot}` : ''}`,
    ),
  async upload(clientId, entry) {
    // The entry's args passed its schema (chat.sendFiles or dm.sendFiles) when it was queued.
    const args = entry.args as SendChatFilesArgs | SendDirectFilesArgs;
    const url =
      entry.name === 'dm.sendFiles'
        ? `/direct-messages/conversations/${(args as SendDirectFilesArgs).conversationId}/messages`
        : '/messages/upload';
    const answer = await api.post<UploadOutcomeResponse>(url, uploadForm(clientId, entry), { timeoutMs: 120_000 });
    return answer.outcome;
  },
};
