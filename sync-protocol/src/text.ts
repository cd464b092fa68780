import { limits } from './limits';

/**
 * Bidirectional controls (embeddings, overrides, isolates and marks) and zero-width characters: in a
 * name they can reverse or hide what others read ("Bob" shown as someone else, "gpj.exe" as "exe.jpg").
 */
const invisibleInNames = /[\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/** A name without bidirectional controls and zero-width characters. */
export const stripInvisible = (name: string): string => name.replace(invisibleInNames, '');

/** The refusal of text with a NUL character (databases, logs and C libraries cut or choke on it). */
export const nulCharacterMessage = 'Text cannot contain NUL characters.';

/** The refusal of input nested deeper than `limits.jsonNestingMax` (a recursive reader would overflow its stack). */
export const nestingTooDeepMessage = `Data cannot be nested more than ${limits.jsonNestingMax} levels deep.`;

/**
 * What makes parsed JSON unacceptable anywhere (a request body or query, a queued write's arguments, a socket
 * payload): a NUL character in a string or key, or nesting deeper than `maxDepth`. The walk keeps its own stack,
 * so no input can exhaust the call stack; null when there is nothing to refuse.
 */
export function inputProblem(value: unknown, maxDepth: number = limits.jsonNestingMax): string | null {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value: current, depth } = next;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return nulCharacterMessage;
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= maxDepth) return nestingTooDeepMessage;
    if (Array.isArray(current)) {
      for (const inner of current as unknown[]) pending.push({ value: inner, depth: depth + 1 });
      continue;
    }
    for (const [key, inner] of Object.entries(current)) {
      if (key.includes('\u0000')) return nulCharacterMessage;
      pending.push({ value: inner, depth: depth + 1 });
    }
  }
  return null;
}
