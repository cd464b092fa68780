import { describe, expect, test } from 'vitest';
import { pushPayloadSchema, type PushPayload } from '@office/sync-protocol';
import {
  fallbackNotificationPath,
  isOpenUrlMessage,
  pushPayloadFields,
  notificationDataUrl,
  notificationTargetPath,
  parsePushPayload,
} from './push-payload';

const origin = 'https://office.example';
const payload: PushPayload = {
  title: 'New task assigned',
  body: 'Maya Manager assigned you "Quarterly report"',
  url: '/tasks?task=5f0c6a52-7a4e-4a3e-9d0a-1f6a2b3c4d5e',
  tag: 'notification-5f0c6a52-7a4e-4a3e-9d0a-1f6a2b3c4d5e',
  notificationId: '5f0c6a52-7a4e-4a3e-9d0a-1f6a2b3c4d5e',
};

describe('parsePushPayload', () => {
  test('reads the payload the server sends', () => {
    expect(parsePushPayload(JSON.stringify(payload))).toEqual(payload);
  });

  test('checks exactly the fields of the protocol schema, all of them strings', () => {
    expect(Object.keys(pushPayloadSchema.shape).sort()).toEqual([...pushPayloadFields].sort());
    expect(pushPayloadSchema.safeParse(payload).success).toBe(true);
    for (const field of pushPayloadFields) {
      expect(pushPayloadSchema.safeParse({ ...payload, [field]: 1 }).success, field).toBe(false);
      expect(parsePushPayload(JSON.stringify({ ...payload, [field]: 1 })), field).toBeNull();
    }
  });

  test('keeps only the known fields', () => {
    expect(parsePushPayload(JSON.stringify({ ...payload, extra: 'ignored' }))).toEqual(payload);
  });

  test('gives null for an empty push, text that is not JSON, or JSON of another shape', () => {
    expect(parsePushPayload(null)).toBeNull();
    expect(parsePushPayload(undefined)).toBeNull();
    expect(parsePushPayload('')).toBeNull();
    expect(parsePushPayload('New task')).toBeNull();
    expect(parsePushPayload('null')).toBeNull();
    expect(parsePushPayload('[1, 2]')).toBeNull();
    expect(parsePushPayload(JSON.stringify({ ...payload, title: 42 }))).toBeNull();
    const { url: _url, ...withoutUrl } = payload;
    expect(parsePushPayload(JSON.stringify(withoutUrl))).toBeNull();
  });
});

describe('notificationTargetPath', () => {
  test('keeps the path, query and hash of a place inside the app', () => {
    expect(notificationTargetPath(payload.url, origin)).toBe(payload.url);
    expect(notificationTargetPath('/chat', origin)).toBe('/chat');
    expect(notificationTargetPath(`${origin}/direct-messages?conversation=c1#end`, origin)).toBe(
      '/direct-messages?conversation=c1#end',
    );
  });

  test('opens the dashboard for another site, a script URL, the API or no URL at all', () => {
    expect(notificationTargetPath('https://evil.example/tasks', origin)).toBe(fallbackNotificationPath);
    expect(notificationTargetPath('//evil.example/tasks', origin)).toBe(fallbackNotificationPath);
    expect(notificationTargetPath('javascript:alert(1)', origin)).toBe(fallbackNotificationPath);
    expect(notificationTargetPath('/api/auth/me', origin)).toBe(fallbackNotificationPath);
    expect(notificationTargetPath('/socket.io/', origin)).toBe(fallbackNotificationPath);
    expect(notificationTargetPath('', origin)).toBe(fallbackNotificationPath);
    expect(notificationTargetPath(undefined, origin)).toBe(fallbackNotificationPath);
    expect(notificationTargetPath(42, origin)).toBe(fallbackNotificationPath);
  });
});

describe('notificationDataUrl', () => {
  test("reads the URL from a notification's data, whatever else it holds", () => {
    expect(notificationDataUrl({ url: '/chat', notificationId: 'n1' })).toBe('/chat');
    expect(notificationDataUrl(null)).toBeUndefined();
    expect(notificationDataUrl('/chat')).toBeUndefined();
  });
});

describe('isOpenUrlMessage', () => {
  test("recognises the worker's message and nothing else", () => {
    expect(isOpenUrlMessage({ type: 'notification.open', url: '/chat' })).toBe(true);
    expect(isOpenUrlMessage({ type: 'SKIP_WAITING' })).toBe(false);
    expect(isOpenUrlMessage({ type: 'notification.open', url: 7 })).toBe(false);
    expect(isOpenUrlMessage(null)).toBe(false);
  });
});
