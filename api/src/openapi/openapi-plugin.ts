import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { createJsonSchemaTransform } from 'fastify-type-provider-zod';
import { PROTOCOL_VERSION, protocolVersionHeader } from '@office/sync-protocol';
import {
  accessOf,
  commonRefusals,
  guardsOf,
  isDocumentedRoute,
  refusalResponses,
  type RouteAccess,
} from './route-docs';

/** A method and path the server answers. */
export interface RegisteredRoute {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route added to the server, in order (the API reference's test compares it with the document). */
    registeredRoutes: readonly RegisteredRoute[];
  }
}

/** The areas of the API, each a group of the reference (in this order), with the paths under it. */
export const apiAreas: readonly { tag: string; description: string; prefixes: readonly string[] }[] = [
  {
    tag: 'Accounts',
    description: 'Signing in and out, profiles, passwords and the directory.',
    prefixes: ['/api/auth'],
  },
  {
    tag: 'Sync',
    description: 'Queued writes in (push) and changes out (pull), for clients that work offline.',
    prefixes: ['/api/sync'],
  },
  { tag: 'Tasks', description: 'Tasks, their edits and their comments.', prefixes: ['/api/tasks'] },
  { tag: 'Team chat', description: 'Messages, files, reactions, typing and presence.', prefixes: ['/api/messages'] },
  { tag: 'Direct messages', description: 'Conversations between two people.', prefixes: ['/api/direct-messages'] },
  {
    tag: 'Notifications',
    description: 'The bell: notices, read marks and preferences.',
    prefixes: ['/api/notifications'],
  },
  { tag: 'Web push', description: "Subscriptions of a person's browsers to web push.", prefixes: ['/api/push'] },
  { tag: 'Search', description: 'Full-text search of what the person may see.', prefixes: ['/api/search'] },
  { tag: 'Employees', description: "Employee Management's overview, for managers.", prefixes: ['/api/employees'] },
  {
    tag: 'Workspace settings',
    description: 'Who may join the workspace, and invitation links.',
    prefixes: ['/api/workspace'],
  },
  { tag: 'Audit trail', description: 'Administrative acts, for admins.', prefixes: ['/api/audit'] },
  {
    tag: 'Server',
    description: 'Health, the configuration clients read, and this reference.',
    prefixes: ['/api/health', '/api/config', '/api/openapi.json', '/api/docs'],
  },
  {
    tag: 'Operations',
    description: "Prometheus' scrape, with the server's METRICS_TOKEN (only when it is set).",
    prefixes: ['/metrics'],
  },
];

/** The area of a route's path; none for a path under no prefix of `apiAreas` (the reference test then fails). */
const areaOf = (url: string) =>
  apiAreas.find((area) => area.prefixes.some((prefix) => url === prefix || url.startsWith(`${prefix}/`)));

const securityOf: Record<RouteAccess, { [scheme: string]: string[] }[]> = {
  'signed-in': [{ bearerAuth: [] }],
  public: [],
  'metrics-token': [{ metricsToken: [] }],
};

/**
 * The success answer of every route: the answers' bodies are not declared as schemas (Fastify serializes them as they
 * are), so the reference describes them in each route's summary and shows its refusals beside it.
 */
const successAnswer = { description: 'Success, with a JSON body as the summary describes' };

const zodTransform = createJsonSchemaTransform({ skipList: [] });

/**
 * The OpenAPI document of every route (GET /api/openapi.json serves it): built by @fastify/swagger from the routes'
 * zod schemas, summaries and refusals, grouped by `apiAreas`. Registered before any route, which it then sees added;
 * `registeredRoutes` keeps the list of what was added, which the reference's test compares with the document.
 */
export const openApiPlugin = fp(
  async (app) => {
    const registeredRoutes: RegisteredRoute[] = [];
    app.decorate('registeredRoutes', registeredRoutes);
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) registeredRoutes.push({ method, url: route.url });
    });
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Office Workspace API',
          version: String(PROTOCOL_VERSION),
          description: [
            'The API of this workspace, as the PWA uses it. Sign in with POST /api/auth/login and send the token it',
            'answers as `Authorization: Bearer <token>`. Every refusal is `{ code, message }` with a stable code; the',
            `answers below list each route's codes. A client built for one protocol version sends it as`,
            `\`${protocolVersionHeader}: ${PROTOCOL_VERSION}\`; a server that speaks another answers 409 client_outdated.`,
          ].join(' '),
        },
        tags: apiAreas.map(({ tag, description }) => ({ name: tag, description })),
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            metricsToken: { type: 'http', scheme: 'bearer', description: 'The server\u2019s METRICS_TOKEN.' },
          },
        },
      },
      transform: (document) => {
        const { url, route } = document;
        const schema: FastifySchema = document.schema ?? {};
        if (!isDocumentedRoute(url)) return { schema: { hide: true }, url };
        const area = areaOf(url);
        const guards = guardsOf(app);
        const { refuses = [], ...rest } = schema;
        const transformed = zodTransform({
          ...document,
          schema: {
            ...rest,
            ...(area ? { tags: [area.tag] } : {}),
            security: securityOf[accessOf(route, guards)],
            // Its own refusals and those every route of its kind can answer, each `{ code, message }`.
            response: refusalResponses(new Set([...refuses, ...commonRefusals(route, guards)])),
          },
        });
        const refusals = transformed.schema.response as Record<string, unknown>;
        return {
          // A plugin's root route (`/api/tasks/`, which Fastify also answers without the slash) as people write it.
          url: url.replace(/(.)\/$/, '$1'),
          schema: { ...transformed.schema, response: { '2XX': successAnswer, ...refusals } },
        };
      },
    });
  },
  { name: 'openapi' },
);
