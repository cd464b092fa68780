/** Someone the composer can offer after an `@`. */
export interface MentionCandidate {
  id: string;
  name: string;
  avatar: string | null;
  /** Shown beside the name, so two people of one name are told apart (see `whoIsWho`). */
  email?: string | null | undefined;
  department?: string | null | undefined;
}

/** How many people the list offers at once; typing more of the name narrows it. */
export const MENTION_SUGGESTIONS_MAX = 8;

/**
 * The people whose full name, or one of its words, starts with what follows the `@` (ignoring case): names
 * starting with it first, then by name. An empty query offers everyone, by name.
 */
export function suggestMentions<P extends MentionCandidate>(
  people: readonly P[],
  query: string,
  max = MENTION_SUGGESTIONS_MAX,
): P[] {
  const needle = query.toLocaleLowerCase();
  const ranked: { person: P; rank: number }[] = [];
  for (const person of people) {
    const name = person.name.trim().toLocaleLowerCase();
    if (name === '') continue;
    if (name.startsWith(needle)) ranked.push({ person, rank: 0 });
    else if (name.split(/\s+/).some((word, index) => index > 0 && word.startsWith(needle)))
      ranked.push({ person, rank: 1 });
  }
  return ranked
    .sort((a, b) => a.rank - b.rank || a.person.name.localeCompare(b.person.name))
    .slice(0, max)
    .map(({ person }) => person);
}
