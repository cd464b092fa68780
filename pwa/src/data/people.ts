import type { PresenceStatus, Role } from '@office/sync-protocol';
import type { LocalUser } from './db';

/** The directory by user id. */
export type People = ReadonlyMap<string, LocalUser>;

/** A person's name as the directory knows it now; the name the row carries when the directory does not know them. */
export const nameOf = (people: People, ref: { id: string; name: string }): string =>
  people.get(ref.id)?.name ?? ref.name;

/** A person's avatar as the directory knows it now; `fallback` (the row's copy) when the directory does not know them. */
export const avatarOf = (people: People, id: string, fallback: string | null = null): string | null => {
  const person = people.get(id);
  return person ? person.avatar : fallback;
};

/**
 * What tells a person apart from another of the same name (two people may share one): their department and
 * email, shown beside the name wherever a name alone would decide whom one writes to or names.
 */
export const whoIsWho = (person: {
  email?: string | null | undefined;
  department?: string | null | undefined;
}): string => [person.department?.trim(), person.email?.trim()].filter(Boolean).join(' · ');

/**
 * Whether a presence counts as online: Online Now, the Employees online filter and the Chat header all
 * count with this. Away (the app open and connected, but hidden or idle) counts: the person is
 * reachable at once.
 */
export const isOnline = (presence: PresenceStatus): boolean => presence !== 'offline';

/**
 * A person's presence as this device shows it: what the server last said, except that a device
 * without a connection shows its own person offline (the server sees them so too).
 */
export const presenceOf = (
  person: { id: string; status: PresenceStatus },
  selfId: string,
  deviceConnected: boolean,
): PresenceStatus => (person.id === selfId && !deviceConnected ? 'offline' : person.status);

/** How many of `people` are online, by `presence`. */
export const countOnline = <P>(people: readonly P[], presence: (person: P) => PresenceStatus): number =>
  people.reduce((count, person) => count + (isOnline(presence(person)) ? 1 : 0), 0);

/**
 * "Online Now" of the dashboard and of Employee Management: the employees online (the people Employee Management
 * lists, and what the dashboard's card opens), never the manager looking, so both read the same number.
 */
export const countOnlineNow = <P extends { role: Role }>(
  people: readonly P[],
  presence: (person: P) => PresenceStatus,
): number =>
  countOnline(
    people.filter((person) => person.role === 'employee'),
    presence,
  );
