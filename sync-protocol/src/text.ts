/**
 * Bidirectional controls (embeddings, overrides, isolates and marks) and zero-width characters: in a
 * name they can reverse or hide what others read ("Bob" shown as someone else, "gpj.exe" as "exe.jpg").
 */
const invisibleInNames = /[\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/** A name without bidirectional controls and zero-width characters. */
export const stripInvisible = (name: string): string => name.replace(invisibleInNames, '');

/** The refusal of text with a NUL character (databases, logs and C libraries cut or choke on it). */
export const nulCharacterMessage = 'Text cannot contain NUL characters.';

/** Whether any string inside `value` (nested objects and arrays too) holds a NUL character. */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) if (key.includes('\u0000') || containsNul(inner)) return true;
  }
  return false;
}
