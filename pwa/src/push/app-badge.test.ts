import { describe, expect, test } from 'vitest';
import { isAppBadgeSupported, showAppBadge } from './app-badge';

function badgingNavigator(options: { clear?: boolean; fail?: boolean } = {}) {
  const calls: string[] = [];
  const target = {
    setAppBadge: async (contents?: number) => {
      calls.push(`set ${contents}`);
      if (options.fail) throw new DOMException('Not installed', 'NotAllowedError');
    },
    ...(options.clear === false ? {} : { clearAppBadge: async () => void calls.push('clear') }),
  };
  return { target, calls };
}

describe('showAppBadge', () => {
  test('puts the unread count on the icon and clears it at zero', async () => {
    const { target, calls } = badgingNavigator();
    await showAppBadge(3, target);
    await showAppBadge(0, target);
    expect(calls).toEqual(['set 3', 'clear']);
  });

  test('clears with setAppBadge(0) where clearAppBadge is missing', async () => {
    const { target, calls } = badgingNavigator({ clear: false });
    await showAppBadge(0, target);
    expect(calls).toEqual(['set 0']);
  });

  test('does nothing where badges are not supported', async () => {
    expect(isAppBadgeSupported({})).toBe(false);
    await expect(showAppBadge(2, {})).resolves.toBeUndefined();
  });

  test('a refused badge is not an error', async () => {
    const { target, calls } = badgingNavigator({ fail: true });
    await expect(showAppBadge(5, target)).resolves.toBeUndefined();
    expect(calls).toEqual(['set 5']);
  });
});
