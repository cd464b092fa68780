import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { RealtimeSocket } from './socket';
import { reportPresence } from './presence';

/** Just enough of a browser page: listeners by event name, a visibility state, timers. */
function fakePage() {
  const listeners = new Map<string, (() => void)[]>();
  const on = (name: string, fn: () => void) => listeners.set(name, [...(listeners.get(name) ?? []), fn]);
  const off = (name: string, fn: () => void) =>
    listeners.set(
      name,
      (listeners.get(name) ?? []).filter((f) => f !== fn),
    );
  const page = {
    visibilityState: 'visible',
    fire: (name: string) => (listeners.get(name) ?? []).forEach((fn) => fn()),
    count: (name: string) => (listeners.get(name) ?? []).length,
  };
  vi.stubGlobal('document', {
    get visibilityState() {
      return page.visibilityState;
    },
    addEventListener: on,
    removeEventListener: off,
  });
  vi.stubGlobal('window', {
    addEventListener: on,
    removeEventListener: off,
    setInterval: globalThis.setInterval,
    clearInterval: globalThis.clearInterval,
  });
  return page;
}

function fakeSocket() {
  const handlers = new Map<string, () => void>();
  const sent: string[] = [];
  const socket = {
    connected: false,
    on: (name: string, fn: () => void) => handlers.set(name, fn),
    off: (name: string) => handlers.delete(name),
    emit: (_event: string, payload: { status: string }) => sent.push(payload.status),
  };
  return {
    socket: socket as unknown as RealtimeSocket,
    sent,
    connect: () => {
      socket.connected = true;
      handlers.get('connect')?.();
    },
  };
}

describe('presence reporting', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  test('online on connect, away when hidden, online again when visible', () => {
    const page = fakePage();
    const { socket, sent, connect } = fakeSocket();
    const stop = reportPresence(socket, 60_000);
    connect();
    page.visibilityState = 'hidden';
    page.fire('visibilitychange');
    page.visibilityState = 'visible';
    page.fire('visibilitychange');
    expect(sent).toEqual(['online', 'away', 'online']);
    stop();
  });

  test('away after the idle time without input, online at the next input, and nothing repeated', () => {
    const page = fakePage();
    const { socket, sent, connect } = fakeSocket();
    const stop = reportPresence(socket, 60_000);
    connect();
    vi.advanceTimersByTime(30_000);
    expect(sent).toEqual(['online']);
    vi.advanceTimersByTime(60_000);
    expect(sent).toEqual(['online', 'away']);
    vi.advanceTimersByTime(60_000);
    page.fire('keydown');
    page.fire('pointerdown');
    expect(sent).toEqual(['online', 'away', 'online']);
    stop();
    expect(page.count('keydown')).toBe(0);
  });

  test('a reconnect reports the current state again', () => {
    fakePage();
    const { socket, sent, connect } = fakeSocket();
    const stop = reportPresence(socket, 60_000);
    connect();
    connect();
    expect(sent).toEqual(['online', 'online']);
    stop();
  });
});
