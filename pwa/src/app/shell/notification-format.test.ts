import { describe, expect, test } from 'vitest';
import type { Notification } from '@office/sync-protocol';
import { badgeText, bellLabel, markAllThrough, notificationTarget, relativeTime } from './notification-format';

const sender = { _id: 'u-maya', id: 'u-maya', name: 'Maya Manager' };

const link = (overrides: Partial<Pick<Notification, 'type' | 'relatedTask' | 'data' | 'sender'>>) => ({
  type: 'custom' as const,
  relatedTask: null,
  data: {},
  sender: null,
  ...overrides,
});

describe('bellLabel and badgeText', () => {
  test('the bell says how many are unread, and only the word when none are', () => {
    expect(bellLabel(0)).toBe('Notifications');
    expect(bellLabel(1)).toBe('Notifications, 1 unread');
    expect(bellLabel(12)).toBe('Notifications, 12 unread');
  });

  test('the badge caps large counts at 99+', () => {
    expect(badgeText(7)).toBe('7');
    expect(badgeText(99)).toBe('99');
    expect(badgeText(100)).toBe('99+');
  });
});

describe('relativeTime', () => {
  const now = new Date('2026-05-14T12:00:00.000Z');

  test('a past notification reads as time ago', () => {
    expect(relativeTime('2026-05-14T11:55:00.000Z', now)).toBe('5 minutes ago');
    expect(relativeTime('2026-05-14T09:00:00.000Z', now)).toBe('about 3 hours ago');
    expect(relativeTime('2026-05-12T12:00:00.000Z', now)).toBe('2 days ago');
  });

  test('a time slightly ahead of this device (clock skew) reads as just now, not in the future', () => {
    expect(relativeTime('2026-05-14T12:00:20.000Z', now)).toBe('less than a minute ago');
  });

  test('an unreadable time shows nothing', () => {
    expect(relativeTime('not a date', now)).toBe('');
  });
});

describe('notificationTarget', () => {
  test('a task notification opens the task on the Tasks screen, without state', () => {
    expect(notificationTarget(link({ type: 'task_assigned', relatedTask: 't-1', sender }))).toEqual({
      to: '/tasks?task=t-1',
      state: null,
    });
  });

  test('a direct message opens the conversation and names the sender for the screen', () => {
    const target = notificationTarget(
      link({ type: 'direct_message', sender, data: { conversationId: 'c-9', senderName: 'Old Name' } }),
    );
    expect(target).toEqual({
      to: '/direct-messages?conversation=c-9',
      state: { activeConversationId: 'c-9', recipientName: 'Maya Manager' },
    });
  });

  test('a direct message from a sender that is gone falls back to the name it carries, or none', () => {
    expect(
      notificationTarget(link({ type: 'direct_message', data: { conversationId: 'c-9', senderName: 'Ben' } })).state,
    ).toEqual({ activeConversationId: 'c-9', recipientName: 'Ben' });
    expect(notificationTarget(link({ type: 'direct_message', data: { conversationId: 'c-9' } })).state).toEqual({
      activeConversationId: 'c-9',
    });
  });

  test('a chat message opens the chat; anything else the dashboard', () => {
    expect(notificationTarget(link({ type: 'chat_message', sender }))).toEqual({ to: '/chat', state: null });
    expect(notificationTarget(link({ type: 'custom' }))).toEqual({ to: '/dashboard', state: null });
    expect(notificationTarget(link({ type: 'direct_message', data: {} }))).toEqual({ to: '/dashboard', state: null });
  });
});

describe('markAllThrough', () => {
  test('is the newest time among the notifications shown, in ISO form', () => {
    expect(
      markAllThrough([
        { createdAt: '2026-05-14T10:00:00.000Z' },
        { createdAt: '2026-05-14T11:30:00.000Z' },
        { createdAt: '2026-05-13T23:00:00.000Z' },
      ]),
    ).toBe('2026-05-14T11:30:00.000Z');
  });

  test('is undefined for an empty list, and skips unreadable times', () => {
    expect(markAllThrough([])).toBeUndefined();
    expect(markAllThrough([{ createdAt: 'garbage' }, { createdAt: '2026-05-14T10:00:00.000Z' }])).toBe(
      '2026-05-14T10:00:00.000Z',
    );
  });
});
