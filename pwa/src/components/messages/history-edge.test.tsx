import { describe, expect, test } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { HistoryEdge, historyEdgeTexts } from './history-edge';

// Server rendering runs no effects: enough to check what the edge of Team Chat's and a conversation's list says.
const render = (props: Partial<Parameters<typeof HistoryEdge>[0]>) =>
  renderToStaticMarkup(<HistoryEdge side="older" canLoad load="idle" onLoad={() => undefined} {...props} />);
const buttons = (html: string) => [...html.matchAll(/<button[^>]*>.*?<\/button>/g)].map(([button]) => button);

describe('the edge of what the device holds', () => {
  test('offline, the top says older messages need a connection, with nothing to press', () => {
    const html = render({ canLoad: false });
    expect(html).toContain(historyEdgeTexts.offlineOlder);
    expect(html).toContain('role="status"');
    expect(buttons(html)).toEqual([]);
  });

  test('online, the top offers older messages; while they load it says so', () => {
    expect(buttons(render({}))).toHaveLength(1);
    expect(render({})).toContain('Load older messages');
    const loading = render({ load: 'loading' });
    expect(loading).toContain(historyEdgeTexts.loadingOlder);
    expect(buttons(loading)).toEqual([]);
  });

  test('a failed load says so, with Try again', () => {
    const html = render({ load: 'failed' });
    expect(html).toContain('role="alert"');
    expect(html).toContain(historyEdgeTexts.failedOlder);
    expect(buttons(html)).toHaveLength(1);
    expect(buttons(html)[0]).toContain('Try again');
  });

  test('below a stretch far back: newer messages online, the newest offline too', () => {
    const online = render({ side: 'newer', onShowNewest: () => undefined });
    expect(buttons(online).map((button) => button.replace(/<[^>]+>/g, ''))).toEqual([
      'Load newer messages',
      'Show newest messages',
    ]);
    const offline = render({ side: 'newer', canLoad: false, onShowNewest: () => undefined });
    expect(offline).not.toContain(historyEdgeTexts.offlineOlder);
    expect(buttons(offline).map((button) => button.replace(/<[^>]+>/g, ''))).toEqual(['Show newest messages']);
  });
});
