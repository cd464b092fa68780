import { describe, expect, test } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { LocalNotification } from '../../data/db';
import { NotificationPanel } from './notification-bell';

const aNotification = (id: string, overrides: Partial<LocalNotification> = {}): LocalNotification => ({
  _id: id,
  id,
  recipient: 'u-alice',
  sender: { _id: 'u-maya', id: 'u-maya', name: 'Maya Manager' },
  type: 'task_assigned',
  title: 'New Task Assigned',
  message: 'Maya Manager assigned you "Quarterly report"',
  relatedTask: 't-1',
  data: {},
  read: false,
  createdAt: new Date(Date.now() - 5 * 60_000).toISOString(),
  version: 1,
  ...overrides,
});

// Server rendering runs no effects: enough to check what the panel shows.
const render = (notifications: LocalNotification[] | undefined, unread: number) =>
  renderToStaticMarkup(
    <NotificationPanel
      id="panel"
      notifications={notifications}
      unread={unread}
      onOpenNotification={() => undefined}
      onMarkAllRead={() => undefined}
    />,
  );

describe('NotificationPanel', () => {
  test('with no notifications it says so and "Mark all as read" is disabled', () => {
    const html = render([], 0);
    expect(html).toContain('role="dialog"');
    expect(html).toContain('No notifications yet');
    expect(html).toContain('All caught up');
    expect(html).toMatch(/<button type="button" class="[^"]*" disabled="">.*Mark all as read<\/button>/);
  });

  test('an unread notification shows its title, message, sender, relative time and an unread mark', () => {
    const html = render([aNotification('n1'), aNotification('n2', { read: true, sender: null, title: 'Old' })], 1);
    expect(html).toContain('1 unread');
    expect(html).toContain('New Task Assigned');
    expect(html).toContain('Maya Manager assigned you &quot;Quarterly report&quot;');
    expect(html).toContain('5 minutes ago');
    expect(html.match(/Unread: /g)).toHaveLength(1);
    expect(html.match(/data-testid="unread-dot"/g)).toHaveLength(1);
    expect(html.match(/Maya Manager<\/span>/g)).toHaveLength(1);
    expect(html).not.toMatch(/disabled="">.*Mark all as read/);
  });

  test('while the database is read it shows Loading...', () => {
    expect(render(undefined, 0)).toContain('Loading...');
  });
});
