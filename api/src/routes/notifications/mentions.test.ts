import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import {
  conversationIdFor,
  notificationSchema,
  uuidv7,
  type ChatMessage,
  type Conversation,
  type DirectMessage,
  type Notification,
} from '@office/sync-protocol';
import { notifications } from '../../db/schema';
import { uniqueText } from '../../../test/support';
import { mutation, useSeededServer, type Session } from '../../../test/api-client';

// @mentions (issue 18): the server reads them from the text of a team chat or direct message when it is sent,
// over REST and through /api/sync/push alike, and stores one `mention` notification per person mentioned.

const { people, db, call, push, registerEmployee } = useSeededServer();

/** The mention notifications stored about a message, as [recipient, title, message]. */
const mentionsAbout = async (messageId: string) =>
  (await db().select().from(notifications).where(eq(notifications.type, 'mention')))
    .filter((row) => row.data.messageId === messageId)
    .map((row) => [row.recipientId, row.title, row.message]);

async function sendChat(by: Session, text: string): Promise<ChatMessage> {
  const res = await call<{ message: ChatMessage }>(by, 'POST', '/api/messages', { id: uuidv7(), text });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.message;
}

async function sendDirect(by: Session, to: Session, text: string): Promise<DirectMessage> {
  const base = '/api/direct-messages/conversations';
  const started = await call<{ conversation: Conversation }>(by, 'POST', base, { recipientId: to.user.id });
  expect(started.status, JSON.stringify(started.body)).toBeLessThan(300);
  const res = await call<{ message: DirectMessage }>(by, 'POST', `${base}/${started.body.conversation.id}/messages`, {
    text,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.message;
}

describe('mentions in team chat', () => {
  test('a message mentioning Alice makes exactly one mention notice, hers; none for the author or a non-member', async () => {
    const { alice, bob } = people;
    const text = `@alice johnson, see this. @Alice Johnson again, @Bob Smith (me) and @Nobody Here ${uniqueText('x')}`;

    const message = await sendChat(bob, text);

    // The preview is the text around Alice's first mention, cut at a word within 50 characters.
    expect(await mentionsAbout(message.id)).toEqual([
      [alice.user.id, 'Bob Smith mentioned you in Team Chat', '@alice johnson, see this. @Alice Johnson again,...'],
    ]);
    const listed = await call<{ notifications: Notification[] }>(alice, 'GET', '/api/notifications?limit=100');
    const notice = listed.body.notifications.find((n) => n.type === 'mention' && n.data.messageId === message.id);
    expect(notificationSchema.parse(notice)).toMatchObject({
      recipient: alice.user.id,
      sender: { id: bob.user.id, name: 'Bob Smith' },
      title: 'Bob Smith mentioned you in Team Chat',
      read: false,
      data: { messageId: message.id },
    });
  });

  test('two mentions in messages that begin alike read apart: each preview is the text around its mention', async () => {
    const { alice, bob } = people;
    const opening = 'Reminder about the release checklist for version 2.4 of the app:';
    const first = await sendChat(bob, `${opening} @Alice Johnson owns the database migration. ${uniqueText('a')}`);
    const second = await sendChat(bob, `${opening} @Alice Johnson owns the rollback drill. ${uniqueText('b')}`);

    const [[, , firstPreview]] = (await mentionsAbout(first.id)) as [[string, string, string]];
    const [[, , secondPreview]] = (await mentionsAbout(second.id)) as [[string, string, string]];
    expect(firstPreview).toBe('...2.4 of the app: @Alice Johnson owns the database...');
    expect(secondPreview).toBe('...2.4 of the app: @Alice Johnson owns the rollback...');
    expect((await mentionsAbout(first.id)).map(([recipient]) => recipient)).toEqual([alice.user.id]);
  });

  test('the longest name wins, and a deactivated member is mentioned no more', async () => {
    const [ida, idaMay, gone] = await Promise.all([
      registerEmployee('Ida'),
      registerEmployee('Ida May Mention'),
      registerEmployee('Gone Mention'),
    ]);
    expect((await call(people.manager, 'DELETE', `/api/auth/users/${gone.user.id}`)).status).toBe(200);

    const message = await sendChat(people.carol, 'Hi @Ida May Mention and @Gone Mention');

    expect((await mentionsAbout(message.id)).map(([recipient]) => recipient)).toEqual([idaMay.user.id]);
    expect((await mentionsAbout(message.id)).map(([recipient]) => recipient)).not.toContain(ida.user.id);
  });

  test('a message with no mention stores no notification at all', async () => {
    const before = (await db().select({ id: notifications.id }).from(notifications)).length;
    await sendChat(people.alice, `Plain text to everyone, mail bob@Bob Smith ${uniqueText('plain')}`);
    expect((await db().select({ id: notifications.id }).from(notifications)).length).toBe(before);
  });
});

describe('mentions in direct messages', () => {
  test('only the other participant can be mentioned: a named non-participant gets nothing', async () => {
    const { alice, bob, carol } = people;
    const text = `@Bob Smith and @Carol Davis, ${uniqueText('dm')}`;

    const message = await sendDirect(alice, bob, text);

    expect(await mentionsAbout(message.id)).toEqual([
      [bob.user.id, 'Alice Johnson mentioned you in a direct message', text],
    ]);
    const row = (
      await db()
        .select()
        .from(notifications)
        .where(and(eq(notifications.type, 'mention'), eq(notifications.recipientId, bob.user.id)))
    ).find((n) => n.data.messageId === message.id);
    expect(row?.data).toEqual({ messageId: message.id, conversationId: conversationIdFor(alice.user.id, bob.user.id) });
    expect((await mentionsAbout(message.id)).map(([recipient]) => recipient)).not.toContain(carol.user.id);
  });
});

describe('mentions through /api/sync/push', () => {
  test('a queued message makes its mention once, however often the push is replayed', async () => {
    const [sam, tia] = await Promise.all([registerEmployee('Sam Queue'), registerEmployee('Tia Queue')]);
    const clientId = uuidv7();
    const chatId = uuidv7();
    const directId = uuidv7();
    const conversationId = conversationIdFor(sam.user.id, tia.user.id);
    const batch = [
      mutation(1, 'chat.send', { id: chatId, text: 'Written offline for @Tia Queue' }),
      mutation(2, 'dm.start', { recipientId: tia.user.id }),
      mutation(3, 'dm.send', { id: directId, conversationId, text: '@tia queue, offline too' }),
    ];

    const first = await push(sam, clientId, batch);
    const replay = await push(sam, clientId, batch);
    // The same message again under a new mutation id (a client that lost its answer) is the same message.
    const again = await push(sam, clientId, [
      mutation(4, 'chat.send', { id: chatId, text: 'Written offline for @Tia Queue' }),
    ]);

    expect(first.outcomes.map((outcome) => outcome.status)).toEqual(['applied', 'applied', 'applied']);
    expect(replay.outcomes.map((outcome) => outcome.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
    expect(again.outcomes.map((outcome) => outcome.status)).toEqual(['applied']);
    expect(await mentionsAbout(chatId)).toEqual([
      [tia.user.id, 'Sam Queue mentioned you in Team Chat', 'Written offline for @Tia Queue'],
    ]);
    expect(await mentionsAbout(directId)).toEqual([
      [tia.user.id, 'Sam Queue mentioned you in a direct message', '@tia queue, offline too'],
    ]);
  });
});

describe('one notice per mentioned message', () => {
  type Listed = { notifications: Notification[]; unreadCount: number };
  const list = async (session: Session): Promise<Listed> => {
    const res = await call<Listed>(session, 'GET', '/api/notifications?limit=100');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  /** The notices a person's list holds about one message: stored ones name it in data, chat ones are it. */
  const about = (page: Listed, messageId: string) =>
    page.notifications.filter((n) => n.id === messageId || n.data.messageId === messageId);

  test('in team chat the mention is the mentioned person’s one notice, counted once; the others keep the plain notice', async () => {
    const [ann, ben, cal] = await Promise.all([
      registerEmployee('Ann Once'),
      registerEmployee('Ben Once'),
      registerEmployee('Cal Once'),
    ]);
    const [benBefore, calBefore] = [await list(ben), await list(cal)];
    const text = `The new onboarding guide is in the shared drive now, @Ben Once please proofread the first chapter ${uniqueText('once')}`;

    const message = await sendChat(ann, text);

    const bens = await list(ben);
    expect(about(bens, message.id)).toEqual([
      expect.objectContaining({
        type: 'mention',
        title: 'Ann Once mentioned you in Team Chat',
        message: '...shared drive now, @Ben Once please proofread the...',
        read: false,
      }),
    ]);
    expect(bens.unreadCount).toBe(benBefore.unreadCount + 1);
    const cals = await list(cal);
    expect(about(cals, message.id)).toEqual([
      expect.objectContaining({ id: message.id, type: 'chat_message', message: `${text.slice(0, 50)}...` }),
    ]);
    expect(cals.unreadCount).toBe(calBefore.unreadCount + 1);

    // Read, the mention leaves nothing unread of that message behind.
    const [mention] = about(bens, message.id);
    expect((await call(ben, 'PATCH', `/api/notifications/${mention?.id}/read`)).status).toBe(200);
    expect((await list(ben)).unreadCount).toBe(benBefore.unreadCount);
    // The message is no chat notice of Ben's to mark.
    expect((await call(ben, 'PATCH', `/api/notifications/${message.id}/read`)).status).toBe(404);
  });

  test('in a direct message a mention of the recipient replaces the plain notice; without one the plain notice stays', async () => {
    const [ann, ben] = await Promise.all([registerEmployee('Ann Direct Once'), registerEmployee('Ben Direct Once')]);
    const before = await list(ben);

    const mentioning = await sendDirect(ann, ben, `@Ben Direct Once, the contract is signed ${uniqueText('dm')}`);
    const plain = await sendDirect(ann, ben, 'Thanks for today');

    const rows = await db().select().from(notifications).where(eq(notifications.recipientId, ben.user.id));
    expect(rows.filter((row) => row.data.messageId === mentioning.id).map((row) => row.type)).toEqual(['mention']);
    expect(rows.filter((row) => row.data.messageId === plain.id).map((row) => [row.type, row.message])).toEqual([
      ['direct_message', 'Thanks for today'],
    ]);
    const after = await list(ben);
    expect(about(after, mentioning.id).map((n) => n.type)).toEqual(['mention']);
    expect(after.unreadCount).toBe(before.unreadCount + 2);

    // The spec's client asks for the message's notice right after sending: the answer is the mention, nothing new.
    const asked = await call<{ notification: Notification }>(ann, 'POST', '/api/notifications', {
      recipient: ben.user.id,
      sender: ann.user.id,
      type: 'direct_message',
      title: 'New Direct Message from Ann Direct Once',
      message: mentioning.text,
      relatedTask: null,
      data: { messageId: mentioning.id, conversationId: mentioning.conversationId },
    });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body.notification.type).toBe('mention');
    expect((await db().select().from(notifications).where(eq(notifications.recipientId, ben.user.id))).length).toBe(
      rows.length,
    );
  });
});
