import { describe, expect, test } from 'vitest';
import { withoutDeviceItems, type SearchItem, type SearchItemGroup } from './search-results';

const item = (key: string): SearchItem => ({
  key,
  kind: 'chat',
  title: [{ text: key, match: false }],
  detail: null,
  meta: '',
  target: { path: `/chat?message=${key}` },
});

const group = (source: SearchItemGroup['source'], keys: string[], total = keys.length): SearchItemGroup => ({
  kind: 'chat',
  source,
  heading: 'Team Chat',
  items: keys.map(item),
  total,
});

describe("the server's options beside the device's", () => {
  test('a row the device found too (it arrived live after the server answered) is one option, the device’s', () => {
    const device = [group('device', ['chat:a', 'chat:b'])];
    const server = [group('server', ['chat:b', 'chat:c'], 3)];
    expect(withoutDeviceItems(server, device)).toEqual([group('server', ['chat:c'], 2)]);
  });

  test('a server group left with nothing is dropped', () => {
    expect(withoutDeviceItems([group('server', ['chat:a'])], [group('device', ['chat:a'])])).toEqual([]);
  });
});
