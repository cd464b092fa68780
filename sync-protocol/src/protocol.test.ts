/// <reference types="node" />
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  PROTOCOL_VERSION,
  authResponseSchema,
  changeSchema,
  idSchema,
  mutationArgsSchemas,
  pullQuerySchema,
  pullResponseSchema,
  pushRequestSchema,
  pushResponseSchema,
  userSchema,
  uuidv7,
} from './index';

/**
 * The hash of every wire schema, one entry per protocol version, oldest first. When a schema
 * changes shape, bump PROTOCOL_VERSION (version.ts) and append `{ protocolVersion, sha256 }`
 * with the hash this test prints.
 */
const recordedHashes: readonly { protocolVersion: number; sha256: string }[] = [
  { protocolVersion: 1, sha256: 'c405f1e294f102d7e85d616b2631eefe94f786af42446d32e37124a2cf211896' },
  { protocolVersion: 2, sha256: '42db673b14fddfe022efd7a71ae4e3d8da94f63b82aac00aeba31ef86acbd835' },
  { protocolVersion: 3, sha256: '3e9ac2e4b2c0e1e78513e8ecb7519ac5586437952c4c4a9534f4bf4686d2f8bc' },
  { protocolVersion: 4, sha256: 'b534aa8c2b7f602170eb91a7de5c6a5e4f97a8c1cd79a0579b78fb2336624181' },
  { protocolVersion: 5, sha256: '353311f8e1aac8887b3a3d7cb18788345db6a21c5602cc0e3f126150599bb63e' },
  { protocolVersion: 6, sha256: 'e860ca0a18e7ff9012ab3ce024c5e45f621fdd73750648e1f84802faccfd3adb' },
  { protocolVersion: 7, sha256: '568f036594e947713f9f197938556bdccf23c93becac59a4807a3e699663e880' },
  { protocolVersion: 8, sha256: '8eb3513d9b217a8b0a029439b1ff18139120d74d8ca8407fb5e5bc5661eeaed7' },
  { protocolVersion: 9, sha256: 'adce163e528df9dc6f2b4b6be4619dceb2e7ddb994c880446653d794bcc06fc2' },
  { protocolVersion: 10, sha256: '3dea5428386bd9700c842872032fb9abbf2ddc1f6449a41961e40510f302ede9' },
  { protocolVersion: 11, sha256: 'fbd2286b9c33f6c1fdad055d3d48cf4251b500139613138e399eb564a793b257' },
];

/** The same JSON whatever order an object's keys were built in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Every schema that crosses the wire, by a stable name. Queries are what the client sends (input). */
function wireSchemas(): Record<string, unknown> {
  const schemas: Record<string, unknown> = {
    pushRequest: z.toJSONSchema(pushRequestSchema),
    pushResponse: z.toJSONSchema(pushResponseSchema),
    pullQuery: z.toJSONSchema(pullQuerySchema, { io: 'input' }),
    pullResponse: z.toJSONSchema(pullResponseSchema),
    authResponse: z.toJSONSchema(authResponseSchema),
    user: z.toJSONSchema(userSchema),
    change: z.toJSONSchema(changeSchema),
  };
  for (const name of Object.keys(mutationArgsSchemas).sort()) {
    // A queued file's Blob has no JSON Schema; it never travels as JSON (it goes as multipart).
    schemas[`mutation:${name}`] = z.toJSONSchema(mutationArgsSchemas[name as keyof typeof mutationArgsSchemas], {
      io: 'input',
      unrepresentable: 'any',
    });
  }
  return schemas;
}

const wireHash = (): string => createHash('sha256').update(canonical(wireSchemas())).digest('hex');

describe('wire protocol', () => {
  test('the wire schemas hash to the value recorded for the current PROTOCOL_VERSION', () => {
    const hash = wireHash();
    const recorded = recordedHashes.find((entry) => entry.protocolVersion === PROTOCOL_VERSION);
    expect(
      recorded,
      `PROTOCOL_VERSION ${PROTOCOL_VERSION} has no recorded hash: add { protocolVersion: ${PROTOCOL_VERSION}, sha256: '${hash}' }`,
    ).toBeDefined();
    expect(hash, `wire schemas changed: bump PROTOCOL_VERSION and update the recorded hash (new hash ${hash})`).toBe(
      recorded?.sha256,
    );
  });

  test('each recorded protocol version has its own hash, newest last', () => {
    const versions = recordedHashes.map((entry) => entry.protocolVersion);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(new Set(recordedHashes.map((entry) => entry.sha256)).size).toBe(recordedHashes.length);
    expect(versions.at(-1)).toBe(PROTOCOL_VERSION);
  });

  test('the hash does not depend on the order object keys were built in', () => {
    expect(canonical({ b: 1, a: [{ d: 2, c: 3 }] })).toBe(canonical({ a: [{ c: 3, d: 2 }], b: 1 }));
    expect(wireHash()).toBe(wireHash());
  });
});

describe('uuidv7', () => {
  const uuidV7Pattern = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  test('is a lower-case UUID with version nibble 7 and the RFC 4122 variant', () => {
    for (let i = 0; i < 200; i++) {
      const id = uuidv7();
      expect(id).toMatch(uuidV7Pattern);
      expect(id[14]).toBe('7');
      expect(idSchema.safeParse(id).success).toBe(true);
    }
  });

  test('carries the given time in milliseconds in its first 48 bits', () => {
    const at = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
    const id = uuidv7(at);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
  });

  test('sorts in time order for increasing times', () => {
    const start = Date.UTC(2024, 5, 1);
    const times = [start, start + 1, start + 2, start + 1000, start + 86_400_000, start + 365 * 86_400_000];
    const ids = times.map((t) => uuidv7(t));
    expect([...ids].sort()).toEqual(ids);
  });

  test('sorts in the order they were made for ids made in the same millisecond', () => {
    const ids = Array.from({ length: 1000 }, () => uuidv7(1_700_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(uuidV7Pattern);
  });

  test('keeps the given time when the next id is made for an earlier millisecond', () => {
    const later = uuidv7(1_700_000_000_500);
    const earlier = uuidv7(1_700_000_000_000);
    expect(parseInt(earlier.slice(0, 8) + earlier.slice(9, 13), 16)).toBe(1_700_000_000_000);
    expect(earlier < later).toBe(true);
  });
});
