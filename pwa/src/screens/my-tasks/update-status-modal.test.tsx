import { describe, expect, test } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Actor, StatusHistoryEntry } from '@office/sync-protocol';
import type { LocalTask } from '../../data/db';
import { WorkspaceContext, type Workspace } from '../../sync/sync-context';
import { UpdateStatusModal } from './update-status-modal';

const ref = (id: string, name: string) => ({ _id: id, id, name });

const entry = (
  n: number,
  status: StatusHistoryEntry['status'],
  extra: Partial<StatusHistoryEntry> = {},
): StatusHistoryEntry => ({
  _id: `h${n}`,
  id: `h${n}`,
  status,
  updatedBy: ref('alice', 'Alice Johnson'),
  updatedAt: new Date(Date.now() - (10 - n) * 3_600_000).toISOString(),
  note: `note ${n}`,
  superseded: false,
  ...extra,
});

const task: LocalTask = {
  _id: 't1',
  id: 't1',
  title: 'Migrate CI pipeline',
  description: 'Move the build',
  assignedTo: ref('alice', 'Alice Johnson'),
  assignedBy: ref('maya', 'Maya Manager'),
  priority: 'critical',
  status: 'waiting',
  dueDate: '2025-05-10',
  comments: [],
  statusHistory: [
    entry(1, 'pending'),
    entry(2, 'working'),
    entry(3, 'waiting'),
    entry(4, 'working', { superseded: true }),
    entry(5, 'pending', { updatedBy: ref('x', '') }),
    entry(6, 'waiting', { note: null }),
  ],
  statusVersion: 5,
  createdAt: '2025-05-01T08:00:00.000Z',
  updatedAt: '2025-05-02T08:00:00.000Z',
  version: 7,
};

// Server rendering runs no effects and no writes; the workspace only has to exist.
const workspace = {
  db: {},
  engine: { kick: () => undefined },
  ctx: { userId: 'alice' },
  socket: {},
} as unknown as Workspace;

const render = (actor: Actor) =>
  renderToStaticMarkup(
    <WorkspaceContext.Provider value={workspace}>
      <UpdateStatusModal task={task} actor={actor} onClose={() => undefined} />
    </WorkspaceContext.Provider>,
  );

describe('UpdateStatusModal', () => {
  test('the assignee sees the four tiles, the note field and both buttons', () => {
    const html = render({ id: 'alice', role: 'employee' });
    expect(html).toContain('Update Task Status');
    for (const label of ['Pending', 'Working', 'Completed', 'Waiting']) expect(html).toContain(`<span>${label}</span>`);
    expect(html).toContain('aria-pressed="true"');
    expect(html).toMatch(/<textarea[^>]*rows="3"[^>]*placeholder="Add a note about this status change..."/);
    expect(html).toContain('Status Note (Optional)');
    expect(html).toContain('>Cancel<');
    // The choice starts at the current status, so the update button is disabled.
    expect(html).toMatch(/<button[^>]*disabled=""[^>]*>Update Status<\/button>/);
  });

  test('the history shows the last 5 entries, newest first, with Unknown and superseded', () => {
    const html = render({ id: 'alice', role: 'employee' });
    expect(html).not.toContain('note 1');
    const order = ['note 5', 'note 4', 'note 3', 'note 2'].map((note) => html.indexOf(note));
    expect(order.every((at, i) => at > 0 && (i === 0 || at > (order[i - 1] ?? 0)))).toBe(true);
    expect(html).toContain('<strong>Unknown</strong>');
    expect(html).toContain('Superseded by a later change');
    expect(html).toContain('ago');
  });

  test('a user without permission sees the message and no action buttons', () => {
    const html = render({ id: 'bob', role: 'employee' });
    expect(html).toContain('You don&#x27;t have permission to update this task&#x27;s status.');
    expect(html).not.toContain('Update Status</button>');
    expect(html).not.toContain('>Cancel<');
    expect(html).not.toContain('aria-pressed');
    expect(html).not.toContain('<textarea');
  });
});
