import { validate } from '@readme/openapi-parser';
import { describe, expect, test } from 'vitest';
import { expectRefusal, useSeededServer } from '../../test/api-client';
import { isDocumentedRoute } from './route-docs';

/** The parts of an OpenAPI operation the tests read. */
interface Operation {
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
}

const methods = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * `/api/tasks/:id` as OpenAPI writes it, `/api/tasks/{id}`; a plugin's root route, which Fastify adds with and without
 * the trailing slash, as one path.
 */
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1');

// With a metrics token, so that GET /metrics is registered and documented too.
const { server, people, call } = useSeededServer({ config: { metricsToken: 'metrics-token-'.padEnd(40, 'x') } });

const fetchDocument = async () => {
  const answer = await call<OpenApiDocument>(people.admin, 'GET', '/api/openapi.json');
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
};

const operationsOf = (document: OpenApiDocument) =>
  Object.entries(document.paths).flatMap(([path, operations]) =>
    methods.filter((method) => operations[method]).map((method) => ({ path, method, operation: operations[method]! })),
  );

describe('GET /api/openapi.json', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    const document = await fetchDocument();
    expect(document.openapi).toBe('3.1.0');
    // The validator resolves references in place: it gets a copy.
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.specification).toBe('OpenAPI');
  });

  test('lists every route the server registers, and only those', async () => {
    const registered = server.app.registeredRoutes
      .filter(({ method, url }) => method !== 'HEAD' && method !== 'OPTIONS' && isDocumentedRoute(url))
      .map(({ method, url }) => `${method} ${openApiPath(url)}`);
    const documented = operationsOf(await fetchDocument()).map(
      ({ method, path }) => `${method.toUpperCase()} ${openApiPath(path)}`,
    );
    expect(registered.length).toBeGreaterThan(60);
    expect(documented.sort()).toEqual([...new Set(registered)].sort());
  });

  test('gives every route a summary, a group and its { code, message } refusals', async () => {
    for (const { path, method, operation } of operationsOf(await fetchDocument())) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(operation.summary?.length, where).toBeGreaterThan(10);
      expect(operation.tags, where).toHaveLength(1);
      const refusals = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
      expect(refusals.length, where).toBeGreaterThan(0);
      for (const [, answer] of refusals) {
        const schema = answer.content?.['application/json']?.schema as {
          properties: Record<string, { enum?: string[] }>;
          required: string[];
        };
        expect(schema.required, where).toEqual(['code', 'message']);
        // Each code a status carries is named in its description, with its message.
        for (const code of schema.properties.code?.enum ?? []) expect(answer.description, where).toContain(code);
      }
    }
  });

  test("lists a route's own refusals beside the common ones", async () => {
    const document = await fetchDocument();
    const login = document.paths['/api/auth/login']?.post;
    expect(login?.security).toEqual([]);
    expect(login?.responses['401']?.description).toContain('invalid_credentials: Invalid email or password');
    expect(login?.responses['401']?.description).not.toContain('token_expired');
    const deleteTask = document.paths['/api/tasks/{id}']?.delete;
    expect(deleteTask?.security).toEqual([{ bearerAuth: [] }]);
    expect(deleteTask?.responses['403']?.description).toContain('forbidden');
    expect(deleteTask?.responses['404']?.description).toContain('task_not_found');
    expect(deleteTask?.responses['401']?.description).toContain('token_expired');
    // The zod schema of the request body is in the document.
    const createTask = document.paths['/api/tasks']?.post as Operation & {
      requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
    };
    expect(Object.keys(createTask.requestBody.content['application/json']!.schema.properties)).toContain('title');
  });

  test('is for admins only', async () => {
    for (const who of ['manager', 'alice'] as const)
      expectRefusal(
        await call(people[who], 'GET', '/api/openapi.json'),
        403,
        'forbidden',
        'You are not allowed to do that.',
      );
    expectRefusal(await call(null, 'GET', '/api/openapi.json'), 401, 'unauthenticated', 'Please sign in to continue.');
  });
});
