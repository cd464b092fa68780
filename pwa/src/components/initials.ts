/**
 * A person's initials: the first letters of the first two words of the name ("Bob Smith" → "BS"),
 * or the first two letters of a one-word name ("Bob" → "BO"); "?" for a blank name. Letters, not
 * UTF-16 halves, so a name starting with an emoji or an astral letter keeps it whole.
 */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const [first, second] = words;
  if (first === undefined) return '?';
  const letters = second === undefined ? Array.from(first).slice(0, 2) : [Array.from(first)[0], Array.from(second)[0]];
  return letters.join('').toLocaleUpperCase();
}
