import { expect, test } from 'vitest';
import { unsentLast } from './unsent-last';

test('unsent messages come after every message the server has stamped, each group in its own order', () => {
  const stamped3 = { id: 'three', version: 4 };
  const unsent4 = { id: 'four', version: 0 };
  const unsent5 = { id: 'five', version: 0 };
  // Read by time: "four" was written on the device before the server stamped "three" on arrival.
  const byTime = [{ id: 'one', version: 1 }, unsent4, stamped3, unsent5];
  expect(unsentLast(byTime).map((message) => message.id)).toEqual(['one', 'three', 'four', 'five']);
});

test('a list with nothing unsent is returned as it is', () => {
  const messages = [
    { id: 'a', version: 1 },
    { id: 'b', version: 2 },
  ];
  expect(unsentLast(messages)).toBe(messages);
});
