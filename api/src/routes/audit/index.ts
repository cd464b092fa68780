import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { auditQuerySchema, canReadAuditLog, type AuditPage } from '@office/sync-protocol';
import { DomainError } from '../../domain/errors';
import { readAuditTrail } from '../../domain/audit/audit-trail';

/** GET /api/audit: the audit trail, newest first, for admins. Nothing changes or deletes a record. */
export const auditRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  app.get(
    '/',
    {
      onRequest: app.authenticate,
      schema: {
        summary: 'The audit trail, newest first, filtered by person and kind (admins)',
        querystring: auditQuerySchema,
        refuses: ['forbidden'],
      },
    },
    async (request): Promise<AuditPage> => {
      if (!canReadAuditLog(request.actor)) throw new DomainError('forbidden');
      return readAuditTrail(app.db, request.query);
    },
  );
  done();
};
