import type { Actor, EntityName, PutChange } from '@office/sync-protocol';
import { syncedEntities } from '../domain/sync/entities';
import type { RoomEvent } from './types';

/** A committed change on its way to sockets: its place in the log (a client's cursor) and who it concerns. */
export interface LiveEntry {
  cursor: string;
  entity: EntityName;
  id: string;
  /** Its audience now and before: the rooms a pull would give it to. */
  principals: string[];
}

/**
 * Someone in a principal's room, as far as seeing an entity goes: a role's room is that role, a person's room is
 * that person (their role's own room answers for their role), the team is nobody in particular.
 */
function actorOf(principal: string): Actor {
  const [kind, id = ''] = principal.split(':');
  if (kind === 'role') return { id: '', role: id as Actor['role'] };
  return { id: kind === 'user' ? id : '', role: 'employee' };
}

/** Whether the people of a principal's room may see this state of the entity (as a pull of theirs would). */
const visibleIn = (principal: string, state: PutChange): boolean =>
  syncedEntities[state.entity].visibleTo(actorOf(principal), state);

/**
 * The `sync.change` events of committed changes, in their order: each to exactly the sockets a pull would give it
 * to, with the entity's current state (`states`, by `entity:id`) where they may see it and its removal where they
 * may not (any more); a socket sees an entity through any of its rooms. A change that a later one of the same entries
 * covers (same entity, principals it includes) is not sent: the later one carries the same current state to the same
 * people (a burst of queued comments on one task sends the task once, not once per comment).
 */
export function changeEvents(entries: readonly LiveEntry[], states: ReadonlyMap<string, PutChange>): RoomEvent[] {
  const lastOf = new Map(entries.map((entry) => [`${entry.entity}:${entry.id}`, entry]));
  const events: RoomEvent[] = [];
  for (const entry of entries) {
    const key = `${entry.entity}:${entry.id}`;
    const last = lastOf.get(key);
    if (last && last !== entry && entry.principals.every((principal) => last.principals.includes(principal))) continue;
    const state = states.get(key);
    const seeing = state ? entry.principals.filter((principal) => visibleIn(principal, state)) : [];
    const gone = entry.principals.filter((principal) => !seeing.includes(principal));
    if (state && seeing.length)
      events.push({ to: seeing, event: 'sync.change', payload: { cursor: entry.cursor, change: state } });
    // Those who lost sight of it remove it, as their pull would; one who still sees it through another room does not.
    if (gone.length)
      events.push({
        to: gone,
        except: seeing,
        event: 'sync.change',
        payload: { cursor: entry.cursor, change: { entity: entry.entity, op: 'delete', id: entry.id } },
      });
  }
  return events;
}
