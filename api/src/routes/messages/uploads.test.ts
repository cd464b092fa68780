import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { uploadLimits, uuidv7, type ChatMessage, type ErrorBody, type Notification } from '@office/sync-protocol';
import { dialect } from '../../db/dialect';
import { chatAttachments, chatMessages, notifications } from '../../db/schema';
import { storedNamePattern } from '../../domain/chat/uploads';
import { bearer } from '../../../test/support';
import {
  fileBytes,
  multipartForm,
  pdfBytes,
  pngBytes,
  postMultipart,
  sampleFile,
  type FilePart,
} from '../../../test/multipart';
import { useSeededServer, type Session } from '../../../test/api-client';

// One seeded server for the whole file; every test uploads its own files and compares the uploads
// directory and the chat tables before and after, so the tests do not depend on each other's leftovers.
const { server, people, db, call } = useSeededServer();

const uploadsDir = () => join(server.config.dataDir, 'uploads');
const filesOnDisk = () => readdirSync(uploadsDir()).sort();
const messageCount = async () => (await db().select({ id: chatMessages.id }).from(chatMessages)).length;
const attachmentCount = async () =>
  (await db().select({ filename: chatAttachments.filename }).from(chatAttachments)).length;

/** Real multipart over HTTP, the way the browser's FormData sends it. */
const upload = <T = { success: boolean; message: ChatMessage }>(
  session: Session | null,
  parts: FilePart[],
  fields: Record<string, string> = {},
) => postMultipart<T>(`${server.url}/api/messages/upload`, session, multipartForm(parts, fields));

async function download(token: string | null, filename: string): Promise<Response> {
  return fetch(`${server.url}/api/messages/download/${filename}`, { headers: token ? bearer(token) : {} });
}

/** An upload that must be refused: status, code and message, and no file or row left behind. */
async function expectRefused(
  parts: FilePart[],
  fields: Record<string, string>,
  expected: { status: number; code: ErrorBody['code']; message?: string | RegExp },
): Promise<ErrorBody> {
  const before = { files: filesOnDisk(), messages: await messageCount(), attachments: await attachmentCount() };
  const res = await upload<ErrorBody>(people.alice, parts, fields);
  expect(res.status).toBe(expected.status);
  expect(res.body.code).toBe(expected.code);
  expect(res.body.message).toEqual(expect.any(String));
  if (typeof expected.message === 'string') expect(res.body.message).toBe(expected.message);
  else if (expected.message) expect(res.body.message).toMatch(expected.message);
  expect(filesOnDisk()).toEqual(before.files);
  expect(await messageCount()).toBe(before.messages);
  expect(await attachmentCount()).toBe(before.attachments);
  return res.body;
}

const unsupported = (name: string) =>
  `"${name}" is not a supported file type. Send images, video, audio, PDF, Word, text, ZIP or RAR files.`;

describe('uploading files to the team chat', () => {
  test('an image and a PDF with text become one file message, stored under random names with the same bytes', async () => {
    const { alice, bob } = people;
    const image = pngBytes(3789);
    const document = pdfBytes(1500);
    const before = filesOnDisk();

    const res = await upload(
      alice,
      [
        { name: 'Holiday photo.png', type: 'image/png', content: image },
        { name: 'Quarterly report.PDF', type: 'application/pdf', content: document },
      ],
      { text: '  Here are the files  ' },
    );

    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const message = res.body.message;
    expect(message).toMatchObject({
      type: 'file',
      text: 'Here are the files',
      userName: 'Alice Johnson',
      edited: false,
      userId: expect.objectContaining({ id: alice.user.id }) as unknown,
    });
    expect(message.attachments).toHaveLength(2);
    const [first, second] = [...message.attachments].sort((a, b) => a.size - b.size);
    expect(second).toEqual({
      filename: expect.stringMatching(/^[0-9a-f-]{36}\.png$/) as unknown,
      originalName: 'Holiday photo.png',
      mimetype: 'image/png',
      mimeType: 'image/png',
      url: `/messages/download/${second?.filename}`,
      size: 3789,
      kind: 'image',
      formattedSize: '3.7 KB',
    });
    expect(first).toEqual({
      filename: expect.stringMatching(/^[0-9a-f-]{36}\.pdf$/) as unknown,
      originalName: 'Quarterly report.PDF',
      mimetype: 'application/pdf',
      mimeType: 'application/pdf',
      url: `/messages/download/${first?.filename}`,
      size: 1500,
      kind: 'pdf',
      formattedSize: '1.46 KB',
    });
    for (const file of [first, second]) expect(file?.filename).toMatch(storedNamePattern);

    // Both files are on disk, byte for byte, and nothing else was added.
    expect(filesOnDisk()).toEqual([...before, second?.filename, first?.filename].sort());
    expect(new Uint8Array(readFileSync(join(uploadsDir(), second?.filename ?? '')))).toEqual(image);
    expect(new Uint8Array(readFileSync(join(uploadsDir(), first?.filename ?? '')))).toEqual(document);

    // The rows: one message of type file, its two attachments.
    const [row] = await db().select().from(chatMessages).where(eq(chatMessages.id, message.id));
    expect(row).toMatchObject({ userId: alice.user.id, text: 'Here are the files', type: 'file', deletedAt: null });
    const attachments = await db().select().from(chatAttachments).where(eq(chatAttachments.messageId, message.id));
    expect(attachments.sort((a, b) => a.size - b.size)).toEqual([
      {
        filename: first?.filename,
        messageId: message.id,
        originalName: 'Quarterly report.PDF',
        mimetype: 'application/pdf',
        size: 1500,
        kind: 'pdf',
      },
      {
        filename: second?.filename,
        messageId: message.id,
        originalName: 'Holiday photo.png',
        mimetype: 'image/png',
        size: 3789,
        kind: 'image',
      },
    ]);

    // The list answers the same message.
    const list = await fetch(`${server.url}/api/messages`, { headers: bearer(bob.token) });
    const { messages } = (await list.json()) as { messages: ChatMessage[] };
    expect(messages.find((m) => m.id === message.id)).toEqual(message);
  });

  test('every other member’s notice of it reads "Shared files" when there is no text', async () => {
    const { alice } = people;
    const res = await upload(alice, [{ name: 'notes.txt', type: 'text/plain', content: fileBytes(20, 'hello') }]);
    expect(res.status).toBe(201);
    expect(res.body.message.text).toBe('');

    for (const session of [people.bob, people.manager]) {
      const listed = await call<{ notifications: Notification[] }>(session, 'GET', '/api/notifications?limit=100');
      expect(listed.body.notifications.find((n) => n.id === res.body.message.id)).toMatchObject({
        sender: { id: alice.user.id },
        type: 'chat_message',
        title: 'New message from Alice Johnson',
        message: 'Shared files',
        read: false,
      });
    }
    // Nothing stored per member.
    expect((await db().select().from(notifications)).filter((n) => n.data.messageId === res.body.message.id)).toEqual(
      [],
    );
  });

  test('the client may choose the message id', async () => {
    const { alice } = people;
    const id = uuidv7();
    const res = await upload(alice, [{ name: 'a.jpg', type: 'image/jpeg', content: sampleFile('a.jpg', 10) }], { id });
    expect(res.status).toBe(201);
    expect(res.body.message.id).toBe(id);
    expect(await db().select().from(chatAttachments).where(eq(chatAttachments.messageId, id))).toHaveLength(1);
  });
  test('an id that is already taken is refused with 409, and the new files are removed', async () => {
    const { alice } = people;
    const id = uuidv7();
    expect(
      (await upload(alice, [{ name: 'first.png', type: 'image/png', content: pngBytes(50) }], { id })).status,
    ).toBe(201);
    await expectRefused(
      [{ name: 'second.png', type: 'image/png', content: pngBytes(60) }],
      { id },
      {
        status: 409,
        code: 'duplicate_id',
      },
    );
    expect(await db().select().from(chatAttachments).where(eq(chatAttachments.messageId, id))).toHaveLength(1);
  });

  test('an id that is not an id is refused with 400, and the files are removed', async () => {
    await expectRefused(
      [{ name: 'x.png', type: 'image/png', content: pngBytes(50) }],
      { id: '../../etc' },
      {
        status: 400,
        code: 'invalid_input',
      },
    );
  });
});

describe('which files the chat accepts', () => {
  const accepted: [name: string, type: string, kind: string, servedAs: string][] = [
    ['photo.jpeg', 'image/jpeg', 'image', 'image/jpeg'],
    ['anim.GIF', 'image/gif', 'image', 'image/gif'],
    ['pic.webp', 'image/webp', 'image', 'image/webp'],
    ['clip.mp4', 'video/mp4', 'video', 'video/mp4'],
    ['clip.webm', 'video/webm', 'video', 'video/webm'],
    ['voice.mp3', 'audio/mpeg', 'audio', 'audio/mpeg'],
    ['voice.wav', 'audio/wav', 'audio', 'audio/wav'],
    ['spec.pdf', 'application/pdf', 'pdf', 'application/pdf'],
    ['spec.pdf', 'application/octet-stream', 'pdf', 'application/pdf'],
    ['letter.doc', 'application/msword', 'document', 'application/msword'],
    [
      'letter.docx',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'document',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ],
    [
      'letter.docx',
      'application/octet-stream',
      'document',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ],
    ['readme.txt', 'text/plain', 'document', 'text/plain; charset=utf-8'],
    // The type comes from the bytes: a text file declared as a page is still served as text.
    ['notes.txt', 'text/html', 'document', 'text/plain; charset=utf-8'],
    ['bundle.zip', 'application/zip', 'archive', 'application/zip'],
    ['bundle.zip', 'application/x-zip-compressed', 'archive', 'application/zip'],
    ['bundle.rar', 'application/vnd.rar', 'archive', 'application/x-rar-compressed'],
    ['bundle.rar', 'application/octet-stream', 'archive', 'application/x-rar-compressed'],
    // What a client declares is not repeated: the scan's two types in one header.
    ['x.png', 'image/png,text/javascript', 'image', 'image/png'],
  ];

  test.each(accepted)('%s sent as %s is accepted as %s', async (name, type, kind, servedAs) => {
    const content = sampleFile(name);
    const res = await upload(people.alice, [{ name, type, content }]);
    expect(res.status).toBe(201);
    const [file] = res.body.message.attachments;
    expect(file).toMatchObject({ originalName: name, kind, mimetype: servedAs, size: content.byteLength });
    expect(file?.filename.endsWith(name.slice(name.lastIndexOf('.')).toLowerCase())).toBe(true);
    expect(existsSync(join(uploadsDir(), file?.filename ?? ''))).toBe(true);
  });

  const refused: [name: string, type: string][] = [
    ['setup.exe', 'application/x-msdownload'],
    ['setup.exe', 'application/octet-stream'],
    ['setup.exe', 'image/png'],
    ['page.html', 'text/html'],
    ['page.html', 'image/png'],
    ['page.htm', 'image/png'],
    ['script.js', 'image/png'],
    ['logo.svg', 'image/svg+xml'],
    ['noextension', 'image/png'],
    ['archive.tar', 'application/x-tar'],
  ];

  test.each(refused)('%s sent as %s is refused with 415, nothing stored', async (name, type) => {
    await expectRefused(
      [{ name, type, content: fileBytes(64, '<html><script>alert(1)</script>') }],
      {},
      {
        status: 415,
        code: 'unsupported_media_type',
        message: unsupported(name),
      },
    );
  });

  const notWhatTheNameSays: [name: string, type: string][] = [
    ['song.mp3', 'image/png'],
    ['photo.png', 'text/plain'],
    ['photo.png', 'image/png'],
    ['logo.png', 'image/svg+xml'],
    ['invoice.pdf', 'text/html'],
    ['invoice.pdf', 'application/pdf'],
    ['letter.docx', 'application/octet-stream'],
  ];

  test.each(notWhatTheNameSays)(
    'a page named %s and sent as %s is refused with 415, nothing stored',
    async (name, type) => {
      const extension = name.slice(name.lastIndexOf('.') + 1).toUpperCase();
      await expectRefused(
        [{ name, type, content: new TextEncoder().encode('<html><script>alert(1)</script></html>') }],
        {},
        {
          status: 415,
          code: 'unsupported_media_type',
          message: `"${name}" is not a real ${extension} file: its contents do not match its name.`,
        },
      );
    },
  );

  test('a file whose bytes are another format than its name says is refused too', async () => {
    await expectRefused(
      [{ name: 'photo.png', type: 'image/png', content: sampleFile('scan.pdf') }],
      {},
      {
        status: 415,
        code: 'unsupported_media_type',
        message: '"photo.png" is not a real PNG file: its contents do not match its name.',
      },
    );
  });

  test('a .txt file that is not UTF-8 text is kept as bytes to download, never as text', async () => {
    const res = await upload(people.alice, [{ name: 'data.txt', type: 'text/plain', content: pngBytes(80) }]);
    expect(res.status).toBe(201);
    expect(res.body.message.attachments[0]).toMatchObject({ kind: 'document', mimetype: 'application/octet-stream' });
  });

  test('a refused file after a good one in the same request leaves neither file nor message behind', async () => {
    await expectRefused(
      [
        { name: 'fine.png', type: 'image/png', content: pngBytes(2048) },
        { name: 'fine.pdf', type: 'application/pdf', content: pdfBytes(2048) },
        { name: 'evil.html', type: 'image/png', content: fileBytes(64, '<html>') },
      ],
      { text: 'two good, one bad' },
      { status: 415, code: 'unsupported_media_type', message: unsupported('evil.html') },
    );
  });
});

describe('what an upload needs', () => {
  test('an upload without files is refused with 400', async () => {
    await expectRefused(
      [],
      { text: 'only text' },
      {
        status: 400,
        code: 'invalid_input',
        message: 'Please select at least one file to upload.',
      },
    );
  });

  test('text over 1000 characters is refused with 400, and the files are removed again', async () => {
    await expectRefused(
      [{ name: 'a.png', type: 'image/png', content: pngBytes(100) }],
      { text: 'x'.repeat(1001) },
      {
        status: 400,
        code: 'invalid_input',
        message: 'A message can have at most 1000 characters.',
      },
    );
  });

  test('text of exactly 1000 characters is fine', async () => {
    const { alice } = people;
    const res = await upload(alice, [{ name: 'a.png', type: 'image/png', content: pngBytes(100) }], {
      text: 'y'.repeat(1000),
    });
    expect(res.status).toBe(201);
    expect(res.body.message.text).toHaveLength(1000);
  });

  test('a JSON body is not an upload', async () => {
    const { alice } = people;
    const before = await messageCount();
    const res = await fetch(`${server.url}/api/messages/upload`, {
      method: 'POST',
      headers: { ...bearer(alice.token), 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello', files: [{ filename: '../../workspace.db' }] }),
    });
    expect([400, 415]).toContain(res.status);
    const body = (await res.json()) as ErrorBody;
    expect(body).toEqual({
      code: 'unsupported_media_type',
      message: 'Send the files as multipart/form-data.',
      success: false,
      error: 'Send the files as multipart/form-data.',
    });
    expect(await messageCount()).toBe(before);
  });

  test('an upload without a token is refused with 401 and stores nothing', async () => {
    const before = filesOnDisk();
    const res = await upload<ErrorBody>(null, [{ name: 'a.png', type: 'image/png', content: pngBytes(100) }]);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthenticated');
    expect(filesOnDisk()).toEqual(before);
  });
});

describe('upload limits', () => {
  test('a file over 25 MB is refused with 413, and the partial file is removed', async () => {
    const big = new Blob([new Uint8Array(uploadLimits.fileBytes + 1)]);
    await expectRefused(
      [{ name: 'huge.mp4', type: 'video/mp4', content: big }],
      {},
      {
        status: 413,
        code: 'payload_too_large',
        message: '"huge.mp4" is larger than 25 MB.',
      },
    );
  });

  test('a file of exactly 25 MB is fine', async () => {
    const { alice } = people;
    const zip = sampleFile('exact.zip');
    const res = await upload(alice, [
      {
        name: 'exact.zip',
        type: 'application/zip',
        content: new Blob([zip, new Uint8Array(uploadLimits.fileBytes - zip.byteLength)]),
      },
    ]);
    expect(res.status).toBe(201);
    const [file] = res.body.message.attachments;
    expect(file).toMatchObject({ size: uploadLimits.fileBytes, formattedSize: '25 MB' });
  });

  test('a good file before one over 25 MB is removed too', async () => {
    await expectRefused(
      [
        { name: 'small.png', type: 'image/png', content: pngBytes(500) },
        { name: 'huge.zip', type: 'application/zip', content: new Blob([new Uint8Array(uploadLimits.fileBytes + 1)]) },
      ],
      {},
      { status: 413, code: 'payload_too_large' },
    );
  });

  test('eleven files are refused with 413, and none of them stays', async () => {
    const parts = Array.from({ length: uploadLimits.files + 1 }, (_, i) => ({
      name: `file-${i}.txt`,
      type: 'text/plain',
      content: fileBytes(32, `file ${i}`),
    }));
    await expectRefused(
      parts,
      {},
      { status: 413, code: 'payload_too_large', message: `At most ${uploadLimits.files} files per message.` },
    );
  });

  test('ten small files are fine', async () => {
    const { alice } = people;
    const parts = Array.from({ length: uploadLimits.files }, (_, i) => ({
      name: `file-${i}.txt`,
      type: 'text/plain',
      content: fileBytes(32, `file ${i}`),
    }));
    const before = filesOnDisk().length;
    const res = await upload(alice, parts);
    expect(res.status).toBe(201);
    expect(res.body.message.attachments.map((a) => a.originalName).sort()).toEqual(parts.map((p) => p.name).sort());
    expect(filesOnDisk()).toHaveLength(before + uploadLimits.files);
    const rows = await db()
      .select()
      .from(chatAttachments)
      .where(
        inArray(
          chatAttachments.filename,
          res.body.message.attachments.map((a) => a.filename),
        ),
      );
    expect(rows).toHaveLength(uploadLimits.files);
  });
});

describe('downloading a chat file', () => {
  async function uploadOne(name: string, type: string, content: Uint8Array): Promise<ChatMessage> {
    const res = await upload(people.alice, [{ name, type, content }]);
    expect(res.status).toBe(201);
    return res.body.message;
  }

  test('any signed-in member gets the bytes, the stored type, the original name and nosniff', async () => {
    const { bob } = people;
    const content = pdfBytes(5000);
    const message = await uploadOne('Plan v2.pdf', 'application/octet-stream', content);
    const [file] = message.attachments;

    const res = await download(bob.token, file?.filename ?? '');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-length')).toBe('5000');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="Plan v2.pdf"; filename*=UTF-8''Plan%20v2.pdf`,
    );
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(content);
  });

  test('a file is served with the type its bytes have, never the one its sender declared', async () => {
    const { bob } = people;
    // The scan's upload: an image declared with a script type beside the image one.
    const image = await uploadOne('x.png', 'image/png,text/javascript', pngBytes(300));
    const served = await download(bob.token, image.attachments[0]?.filename ?? '');
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-disposition')).toMatch(/^attachment; /);

    const text = await uploadOne('agenda.txt', 'text/html', new TextEncoder().encode('<b>1. Budget</b>\n'));
    const page = await download(bob.token, text.attachments[0]?.filename ?? '');
    expect(page.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(page.headers.get('content-disposition')).toMatch(/^attachment; /);
    const [stored] = await db()
      .select({ mimetype: chatAttachments.mimetype })
      .from(chatAttachments)
      .where(eq(chatAttachments.messageId, text.id));
    expect(stored?.mimetype).toBe('text/plain; charset=utf-8');
  });

  test('a non-ASCII name travels in filename*, with an ASCII stand-in in filename', async () => {
    const { alice } = people;
    const message = await uploadOne('Résumé été.pdf', 'application/pdf', pdfBytes(300));
    const res = await download(alice.token, message.attachments[0]?.filename ?? '');
    expect(res.status).toBe(200);
    const header = res.headers.get('content-disposition') ?? '';
    expect(header).toBe(
      `attachment; filename="R_sum_ _t_.pdf"; filename*=UTF-8''${encodeURIComponent('Résumé été.pdf')}`,
    );
    const encoded = /filename\*=UTF-8''([^;]+)/.exec(header)?.[1] ?? '';
    expect(decodeURIComponent(encoded)).toBe('Résumé été.pdf');
  });

  test('a name with quotes, brackets and an apostrophe gives a valid RFC 5987 filename*', async () => {
    const { alice } = people;
    const name = "Bob's (final) *draft*.txt";
    const message = await uploadOne(name, 'text/plain', fileBytes(10, 'draft'));
    const res = await download(alice.token, message.attachments[0]?.filename ?? '');
    expect(res.status).toBe(200);
    const header = res.headers.get('content-disposition') ?? '';
    const encoded = /filename\*=UTF-8''(.+)$/.exec(header)?.[1] ?? '';
    // attr-char of RFC 5987: no quote, apostrophe, brackets or star in the encoded value.
    expect(encoded).toMatch(/^(?:%[0-9A-F]{2}|[A-Za-z0-9!#$&+.^_`|~-])+$/);
    expect(decodeURIComponent(encoded)).toBe(name);
    expect(header.startsWith(`attachment; filename="Bob's (final) *draft*.txt"; `)).toBe(true);
  });

  test('an image is served with its own type', async () => {
    const { bob } = people;
    const content = pngBytes(700);
    const message = await uploadOne('chart.png', 'image/png', content);
    const res = await download(bob.token, message.attachments[0]?.filename ?? '');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(content);
  });

  test('a download needs a valid token', async () => {
    const message = await uploadOne('secret.txt', 'text/plain', fileBytes(10, 'secret'));
    const filename = message.attachments[0]?.filename ?? '';

    const none = await download(null, filename);
    expect(none.status).toBe(401);
    expect(((await none.json()) as ErrorBody).code).toBe('unauthenticated');

    const bad = await download('not-a-real-token', filename);
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as ErrorBody).code).toBe('unauthenticated');
  });

  test('path tricks are unknown names: 404, never the file', async () => {
    const { alice } = people;
    const message = await uploadOne('real.txt', 'text/plain', fileBytes(10, 'real'));
    const stored = message.attachments[0]?.filename ?? '';
    // The files the tricks aim at are there (on PostgreSQL the database is no file of the data folder).
    expect(existsSync(join(server.config.dataDir, 'jwt-secret'))).toBe(true);
    if (dialect === 'sqlite') {
      const dbHead = readFileSync(join(server.config.dataDir, 'workspace.db')).subarray(0, 16).toString('latin1');
      expect(dbHead).toBe('SQLite format 3\0');
    }

    const attempts = [
      '..%2F..%2Fworkspace.db',
      '..%2Fworkspace.db',
      '..%2Fjwt-secret',
      '%2E%2E%2Fjwt-secret',
      '..%5Cworkspace.db',
      `..%2Fuploads%2F${stored}`,
      `.%2F${stored}`,
      `${stored}%2F`,
      `${stored}%00.txt`,
      `${stored.toUpperCase()}`,
      '%2Fetc%2Fpasswd',
      encodeURIComponent(join(uploadsDir(), stored)),
      `sub%2F${stored}`,
    ];
    for (const attempt of attempts) {
      const res = await download(alice.token, attempt);
      const text = await res.text();
      expect(res.status, attempt).toBe(404);
      expect(text, attempt).not.toContain('SQLite format');
      expect(text, attempt).not.toContain('real');
      expect((JSON.parse(text) as ErrorBody).code, attempt).toBe('not_found');
    }
  });

  test('an unknown but well-formed name is 404', async () => {
    const { alice } = people;
    const res = await download(alice.token, `${randomUUID()}.pdf`);
    expect(res.status).toBe(404);
    expect((await res.json()) as ErrorBody).toEqual({ code: 'not_found', message: 'File not found.' });
  });

  test('a file its message names but the store no longer holds is 404, not an empty body', async () => {
    const { bob } = people;
    const message = await uploadOne('lost.pdf', 'application/pdf', pdfBytes(300));
    const filename = message.attachments[0]?.filename ?? '';
    rmSync(join(uploadsDir(), filename));

    const res = await download(bob.token, filename);
    expect(res.status).toBe(404);
    expect((await res.json()) as ErrorBody).toEqual({ code: 'not_found', message: 'File not found.' });
  });

  test('the file of a deleted message is no longer served', async () => {
    const { alice, bob } = people;
    const message = await uploadOne('gone.pdf', 'application/pdf', pdfBytes(400));
    const filename = message.attachments[0]?.filename ?? '';
    expect((await download(bob.token, filename)).status).toBe(200);

    const del = await fetch(`${server.url}/api/messages/${message.id}`, {
      method: 'DELETE',
      headers: bearer(alice.token),
    });
    expect(del.status).toBe(200);
    expect((await db().select().from(chatMessages).where(eq(chatMessages.id, message.id)))[0]?.deletedAt).toEqual(
      expect.any(String),
    );

    const res = await download(bob.token, filename);
    expect(res.status).toBe(404);
    expect((await res.json()) as ErrorBody).toEqual({ code: 'not_found', message: 'File not found.' });
  });
});
