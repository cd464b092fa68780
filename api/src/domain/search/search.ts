import type { SQL } from 'drizzle-orm';
import {
  isStaff,
  matchesQuery,
  searchWords,
  serverSearchKinds,
  snippetParts,
  taskMatch,
  type Actor,
  type ChatMessage,
  type DirectMessage,
  type SearchHit,
  type SearchResponse,
  type ServerSearchKind,
  type Task,
  type WordMatch,
} from '@office/sync-protocol';
import type { Db } from '../../db/client';
import { BadSearchCursor, matchingIds, personToken } from '../../db/full-text';
import { DomainError } from '../errors';
import { usersById } from '../read-support';
import { loadVisible, visibleRowsOf } from '../sync/entities';

/** What GET /api/search asks, as its schema parsed it. */
export interface SearchRequest {
  q: string;
  kind?: ServerSearchKind | undefined;
  before?: string | undefined;
  limit: number;
}

/**
 * Who may see what, as a pull decides it (visibleRowsOf): the condition narrows the matches in the database; the
 * index's person token narrows them before that where the index holds one (a person's direct messages, an
 * employee's tasks), so that nobody else's rows are read.
 */
function audienceOf(actor: Actor, kind: ServerSearchKind): { visible: SQL | undefined; token: string | null } {
  switch (kind) {
    case 'chat':
      return { visible: visibleRowsOf.chatMessage(), token: null };
    case 'direct':
      return { visible: visibleRowsOf.directMessage(actor), token: personToken(actor.id) };
    case 'task':
      return { visible: visibleRowsOf.task(actor), token: isStaff(actor) ? null : personToken(actor.id) };
  }
}

/** The hits of these ids, in their order; loaded and checked as a pull loads and checks them. */
async function hitsOf(
  db: Db,
  actor: Actor,
  kind: ServerSearchKind,
  ids: string[],
  matches: WordMatch,
): Promise<SearchHit[]> {
  const order = (found: Map<string, SearchHit>) => ids.flatMap((id) => found.get(id) ?? []);
  switch (kind) {
    case 'chat': {
      const messages = (await loadVisible(db, actor, 'chatMessage', ids)).map((change) => change.data as ChatMessage);
      return order(
        new Map(
          messages.map((message): [string, SearchHit] => [
            message.id,
            {
              kind: 'chat',
              id: message.id,
              author: { id: message.userId.id, name: message.userName },
              at: message.timestamp,
              snippet: snippetParts(message.text, matches),
            },
          ]),
        ),
      );
    }
    case 'direct': {
      const messages = (await loadVisible(db, actor, 'directMessage', ids)).map(
        (change) => change.data as DirectMessage,
      );
      const others = await usersById(
        db,
        messages.map((message) => message.participantIds.find((id) => id !== actor.id) ?? actor.id),
      );
      return order(
        new Map(
          messages.map((message): [string, SearchHit] => {
            const otherId = message.participantIds.find((id) => id !== actor.id) ?? actor.id;
            return [
              message.id,
              {
                kind: 'direct',
                id: message.id,
                conversationId: message.conversationId,
                with: { id: otherId, name: others.get(otherId)?.name ?? 'Unknown' },
                sender: { id: message.sender.id, name: message.sender.name },
                at: message.createdAt,
                snippet: snippetParts(message.text, matches),
              },
            ];
          }),
        ),
      );
    }
    case 'task': {
      const found = (await loadVisible(db, actor, 'task', ids)).map((change) => change.data as Task);
      return order(
        new Map(
          found.map((task): [string, SearchHit] => [
            task.id,
            { kind: 'task', id: task.id, status: task.status, at: task.updatedAt, ...taskMatch(task, matches) },
          ]),
        ),
      );
    }
  }
}

/**
 * Full-text search of what `actor` may see on the server: team chat, their direct messages and their tasks (title,
 * description and comments), newest first, a page of `limit` per kind. Every word must match, the last one also
 * as a prefix; the matched words come marked in each hit's passages.
 */
export async function searchWorkspace(db: Db, actor: Actor, request: SearchRequest): Promise<SearchResponse> {
  const words = searchWords(request.q);
  const matches = matchesQuery(words);
  const kinds = request.kind ? [request.kind] : serverSearchKinds;
  const groups = [];
  for (const kind of kinds) {
    const { visible, token } = audienceOf(actor, kind);
    let page;
    try {
      page = await matchingIds(db, {
        kind,
        words,
        audience: token,
        visible,
        before: request.before ?? null,
        limit: request.limit,
      });
    } catch (error) {
      if (error instanceof BadSearchCursor)
        throw new DomainError('invalid_input', 'This page of results is not known: search again.');
      throw error;
    }
    groups.push({ kind, hits: await hitsOf(db, actor, kind, page.ids, matches), next: page.next });
  }
  return { groups };
}
