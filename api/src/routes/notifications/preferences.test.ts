import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import {
  defaultNotificationPreferences,
  errorCatalogue,
  notificationPreferencesSchema,
  preferenceTexts,
  type Notification,
  type NotificationPreferences,
} from '@office/sync-protocol';
import { notificationPreferences, notifications } from '../../db/schema';
import { firstDigestAt, nextDigestAt } from '../../domain/notifications/preferences';
import { runMorningDigests } from '../../jobs/morning-digest';
import { uniqueText } from '../../../test/support';
import { expectRefusal, mutation, useSeededServer, type Session } from '../../../test/api-client';

const { server, people, db, call, pull, push, registerEmployee } = useSeededServer();

type Preferences = { success: boolean; preferences: NotificationPreferences };
type Listed = { notifications: Notification[]; unreadCount: number };

const preferencesOf = async (session: Session) => {
  const res = await call<Preferences>(session, 'GET', '/api/notifications/preferences');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return notificationPreferencesSchema.parse(res.body.preferences);
};
const setPreferences = async (session: Session, changes: Record<string, unknown>) => {
  const res = await call<Preferences>(session, 'PUT', '/api/notifications/preferences', changes);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.preferences;
};
const list = async (session: Session) => (await call<Listed>(session, 'GET', '/api/notifications?limit=100')).body;
const storedOf = (userId: string) => db().select().from(notifications).where(eq(notifications.recipientId, userId));

async function post(by: Session, text: string): Promise<string> {
  const res = await call<{ message: { id: string } }>(by, 'POST', '/api/messages', { text });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.message.id;
}

async function createTask(assignee: Session, dueDate: string, title = uniqueText('Digest task')): Promise<string> {
  const res = await call<{ task: { id: string } }>(people.manager, 'POST', '/api/tasks', {
    title,
    assignedTo: assignee.user.id,
    dueDate,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.task.id;
}

describe('notification preferences: stored per person, synced to their devices', () => {
  test('the spec’s behaviour is the default; a change keeps what it does not name', async () => {
    const pat = await registerEmployee('Pat Prefs');
    expect(await preferencesOf(pat)).toEqual(defaultNotificationPreferences(pat.user.id));

    await setPreferences(pat, { teamChat: 'mentions', quietHours: { from: '22:00', to: '07:00' } });
    await setPreferences(pat, { taskNotices: false, timeZone: 'Europe/Berlin' });

    expect(await preferencesOf(pat)).toMatchObject({
      teamChat: 'mentions',
      directMessages: true,
      taskNotices: false,
      morningDigest: true,
      quietHours: { from: '22:00', to: '07:00' },
      timeZone: 'Europe/Berlin',
    });
    // Another person's are untouched.
    expect((await preferencesOf(people.bob)).teamChat).toBe('all');
  });

  test('bad input is refused with a clear message and changes nothing', async () => {
    const pat = await registerEmployee('Pat Refused');
    await setPreferences(pat, { teamChat: 'none' });
    const refusals: [Record<string, unknown>, string][] = [
      [{ quietHours: { from: '22:00', to: '22:00' } }, preferenceTexts.quietHoursSame],
      [{ quietHours: { from: '25:00', to: '07:00' } }, preferenceTexts.clockTime],
      [{ timeZone: 'Mars/Olympus_Mons' }, preferenceTexts.timeZone],
    ];
    for (const [body, message] of refusals) {
      const res = await call(pat, 'PUT', '/api/notifications/preferences', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_input', message });
    }
    const unknown = await call(pat, 'PUT', '/api/notifications/preferences', { teamChat: 'some' });
    expect(unknown.status).toBe(400);
    expectRefusal(
      await call(null, 'PUT', '/api/notifications/preferences', { teamChat: 'all' }),
      401,
      'unauthenticated',
      errorCatalogue.unauthenticated.message,
    );
    expect(await preferencesOf(pat)).toMatchObject({ teamChat: 'none', quietHours: null, timeZone: null });
  });

  test('a queued change replays through sync; the person’s devices pull it, nobody else’s do', async () => {
    const pat = await registerEmployee('Pat Synced');
    const clientId = '01900000-0000-7000-8000-00000000aa01';
    const start = await pull(pat, clientId, '0');
    expect(start.changes.find((change) => change.entity === 'notificationPreferences')).toMatchObject({
      id: pat.user.id,
      data: { teamChat: 'all' },
    });

    const answer = await push(pat, clientId, [mutation(1, 'notification.setPreferences', { directMessages: false })]);
    expect(answer.outcomes).toEqual([{ id: 1, status: 'applied' }]);

    const after = await pull(pat, clientId, start.cursor);
    expect(after.changes.map((change) => [change.entity, change.id])).toEqual([
      ['notificationPreferences', pat.user.id],
    ]);
    expect(after.changes[0]).toMatchObject({ data: { directMessages: false, teamChat: 'all' } });
    const bobsView = await pull(people.bob, '01900000-0000-7000-8000-00000000aa02', start.cursor);
    expect(bobsView.changes.filter((change) => change.entity === 'notificationPreferences')).toEqual([]);
  });
});

describe('what the preferences turn off is neither in the bell nor stored', () => {
  test('team chat: every message by default; mentions only or none leave only mentions in the list and the count', async () => {
    const pat = await registerEmployee('Pat Chat');
    const plain = await post(people.bob, uniqueText('Plain team news'));
    const mention = await post(people.bob, `@${pat.user.name} ${uniqueText('over to you')}`);
    const ids = (listed: Listed) => listed.notifications.map((notice) => notice.data.messageId ?? notice.id);
    const everything = await list(pat);
    expect(ids(everything)).toEqual(expect.arrayContaining([plain, mention]));

    for (const teamChat of ['mentions', 'none'] as const) {
      await setPreferences(pat, { teamChat });
      const listed = await list(pat);
      expect(listed.notifications.map((notice) => notice.type)).toEqual(['mention']);
      expect(listed.unreadCount).toBe(1);
      const markChat = await call(pat, 'PATCH', `/api/notifications/${plain}/read`);
      expect(markChat.status).toBe(404);
    }

    await setPreferences(pat, { teamChat: 'all' });
    expect((await list(pat)).unreadCount).toBe(everything.unreadCount);
  });

  test('direct messages off: a message makes no notice, and POST /api/notifications answers without one', async () => {
    const pat = await registerEmployee('Pat Direct');
    await setPreferences(pat, { directMessages: false });
    const started = await call<{ conversation: { id: string } }>(
      people.bob,
      'POST',
      '/api/direct-messages/conversations',
      {
        recipientId: pat.user.id,
      },
    );
    const conversationId = started.body.conversation.id;
    const sent = await call<{ message: { id: string } }>(
      people.bob,
      'POST',
      `/api/direct-messages/conversations/${conversationId}/messages`,
      { text: 'Quiet please' },
    );
    expect(sent.status).toBe(201);
    const asked = await call(people.bob, 'POST', '/api/notifications', {
      recipient: pat.user.id,
      type: 'direct_message',
      data: { messageId: sent.body.message.id, conversationId },
    });
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ success: true, notification: null });
    expect(await storedOf(pat.user.id)).toEqual([]);

    await setPreferences(pat, { directMessages: true });
    await call(people.bob, 'POST', `/api/direct-messages/conversations/${conversationId}/messages`, { text: 'Now?' });
    expect((await storedOf(pat.user.id)).map((row) => row.type)).toEqual(['direct_message']);
  });

  test('task notices off: an assignment makes no notice; a mention still does', async () => {
    const pat = await registerEmployee('Pat Tasks');
    await setPreferences(pat, { taskNotices: false });
    await createTask(pat, new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10));
    expect(await storedOf(pat.user.id)).toEqual([]);
    await post(people.bob, `@${pat.user.name} ${uniqueText('look')}`);
    expect((await storedOf(pat.user.id)).map((row) => row.type)).toEqual(['mention']);
  });
});

describe('the morning digest', () => {
  /** A date in a time zone, YYYY-MM-DD. */
  const dateIn = (at: Date, timeZone: string) =>
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
  const shift = (isoDate: string, days: number) =>
    new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  const digestsOf = (userId: string) =>
    db()
      .select()
      .from(notifications)
      .where(and(eq(notifications.recipientId, userId), eq(notifications.type, 'digest')));

  test('one "Your day" at 08:00 in the person’s time zone, listing their overdue tasks and those due today', async () => {
    const pat = await registerEmployee('Pat Tokyo');
    const quiet = await registerEmployee('Pat Nodigest');
    const idle = await registerEmployee('Pat Idle');
    // Tokyo: 08:00 there is 23:00 UTC the day before, so the day is Tokyo's, not the server's.
    for (const person of [pat, quiet, idle]) await setPreferences(person, { timeZone: 'Asia/Tokyo' });
    await setPreferences(quiet, { morningDigest: false });
    const day = dateIn(new Date(Date.now() + 3 * 86_400_000), 'Asia/Tokyo');
    const overdue = await createTask(pat, shift(day, -1), 'Fix the login page');
    const dueToday = await createTask(pat, day, 'Ship the release');
    await createTask(pat, shift(day, 1), 'Tomorrow’s work');
    const finished = await createTask(pat, shift(day, -1), 'Done already');
    await call(people.manager, 'PUT', `/api/tasks/${finished}`, { status: 'completed' });
    await createTask(quiet, day, 'Quiet task');
    const app = server.app;

    // The server was down at the previous 08:00: that digest is skipped, the next one is set.
    await runMorningDigests(app.db, app.flush, new Date(Date.parse(`${shift(day, -1)}T12:00:00+09:00`)));
    expect(await digestsOf(pat.user.id)).toEqual([]);
    const [next] = await db().select().from(notificationPreferences).where(eq(notificationPreferences.id, pat.user.id));
    expect(next?.digestDueAt).toBe(new Date(`${day}T08:00:00+09:00`).toISOString());

    await runMorningDigests(app.db, app.flush, new Date(Date.parse(`${day}T08:00:30+09:00`)));
    const [digest, ...more] = await digestsOf(pat.user.id);
    expect(more).toEqual([]);
    expect(digest).toMatchObject({
      title: 'Your day',
      message: 'Overdue: Fix the login page. Due today: Ship the release.',
      data: {
        date: day,
        overdue: [{ id: overdue, title: 'Fix the login page', dueDate: shift(day, -1) }],
        dueToday: [{ id: dueToday, title: 'Ship the release', dueDate: day }],
      },
    });
    expect((await list(pat)).notifications.find((notice) => notice.type === 'digest')?.title).toBe('Your day');
    // Off for one, nothing to tell the other; and only once a day.
    expect(await digestsOf(quiet.user.id)).toEqual([]);
    expect(await digestsOf(idle.user.id)).toEqual([]);
    await runMorningDigests(app.db, app.flush, new Date(Date.parse(`${day}T09:00:00+09:00`)));
    expect(await digestsOf(pat.user.id)).toHaveLength(1);
  });

  test('08:00 follows the clocks: the day daylight saving starts, and zones with half hours', () => {
    // Berlin moves from +01:00 to +02:00 on 29 March 2026.
    expect(nextDigestAt('Europe/Berlin', new Date('2026-03-28T12:00:00Z')).toISOString()).toBe(
      '2026-03-29T06:00:00.000Z',
    );
    expect(nextDigestAt('Europe/Berlin', new Date('2026-03-28T06:59:00Z')).toISOString()).toBe(
      '2026-03-28T07:00:00.000Z',
    );
    expect(nextDigestAt('Asia/Kolkata', new Date('2026-11-26T03:00:00Z')).toISOString()).toBe(
      '2026-11-27T02:30:00.000Z',
    );
    expect(nextDigestAt('America/New_York', new Date('2026-11-26T12:59:00Z')).toISOString()).toBe(
      '2026-11-26T13:00:00.000Z',
    );
    // A first time zone: this morning's digest while the morning is young, else tomorrow's.
    const first = (at: string) => firstDigestAt('Europe/Berlin', new Date(at)).toISOString();
    expect(first('2026-11-26T08:30:00Z')).toBe('2026-11-26T07:00:00.000Z');
    expect(first('2026-11-26T12:00:00Z')).toBe('2026-11-27T07:00:00.000Z');
    expect(first('2026-11-26T06:00:00Z')).toBe('2026-11-26T07:00:00.000Z');
  });
});
