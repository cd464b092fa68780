import { describe, expect, test } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { MessageContext, ShownMessage } from './message-item';
import { MessageItem } from './message-item';

// Server rendering runs no effects: enough to check what each screen's message shows and offers.
const message: ShownMessage = { id: 'm1', text: 'Hello there', attachments: [], reactions: [], edited: true };
const context = (layout: MessageContext['layout']): MessageContext => ({
  layout,
  now: new Date(2025, 4, 14, 15, 30),
  selfId: 'alice',
  token: null,
  findMentions: () => [],
  people: new Map(),
  onReact: () => undefined,
});
const render = (props: Partial<Parameters<typeof MessageItem>[0]> & { layout: MessageContext['layout'] }) =>
  renderToStaticMarkup(
    <MessageItem
      message={message}
      sentAt={new Date(2025, 4, 14, 9, 5).toISOString()}
      authorName="Bob Smith"
      authorAvatar={null}
      isOwn={false}
      context={context(props.layout)}
      queuedReactions={undefined}
      {...props}
    />,
  );

describe('a message in Team Chat (thread)', () => {
  test('shows its author, time and "(edited)" above the bubble', () => {
    const html = render({ layout: 'thread' });
    expect(html).toContain('>Bob Smith<');
    expect(html).toContain('9:05 AM');
    expect(html).toContain('(edited)');
    expect(html.indexOf('9:05 AM')).toBeLessThan(html.indexOf('Hello there'));
  });

  test('whoever may edit and delete gets a menu; others get none', () => {
    const moderated = render({ layout: 'thread', onEdit: async () => null, onDelete: () => undefined });
    expect(moderated).toContain('aria-label="Message actions"');
    expect(render({ layout: 'thread' })).not.toContain('aria-label="Message actions"');
  });

  test('one’s own bubble offers double-click to edit only where one may edit', () => {
    expect(render({ layout: 'thread', isOwn: true, onEdit: async () => null })).toContain('Double-click to edit');
    expect(render({ layout: 'thread', isOwn: true })).not.toContain('Double-click to edit');
  });
});

describe('a message in a direct conversation', () => {
  test('shows the time below the bubble and no author line', () => {
    const html = render({ layout: 'conversation' });
    expect(html.indexOf('9:05 AM')).toBeGreaterThan(html.indexOf('Hello there'));
    expect(html).not.toContain('>Bob Smith<');
  });

  test('one’s own message has Delete as its one action, and a read receipt', () => {
    const sent = render({ layout: 'conversation', isOwn: true, onDelete: () => undefined });
    expect(sent).toContain('aria-label="Delete message"');
    expect(sent).not.toContain('aria-label="Message actions"');
    expect(sent).toContain('aria-label="Sent"');
    expect(render({ layout: 'conversation', isOwn: true, readByOther: true })).toContain('aria-label="Read"');
  });

  test('the other’s message has no actions and no receipt', () => {
    const html = render({ layout: 'conversation' });
    expect(html).not.toContain('Delete message');
    expect(html).not.toContain('aria-label="Sent"');
  });
});
