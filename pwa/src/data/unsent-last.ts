/**
 * Messages in the order the server will hold them: those it has stamped (version ≥ 1) by their time, then the
 * ones still unsent (version 0) in the order they were written. The server stamps a message when it receives
 * it, so an unsent message will land after every stamped one; shown by its time on this device instead, a
 * message written while an earlier one was on its way would show above it once that earlier one came back
 * with the server's later time. `messages` arrive oldest first, as read by their time index.
 */
export function unsentLast<T extends { version: number }>(messages: T[]): T[] {
  const unsent = messages.filter((message) => message.version === 0);
  if (unsent.length === 0) return messages;
  return [...messages.filter((message) => message.version !== 0), ...unsent];
}
