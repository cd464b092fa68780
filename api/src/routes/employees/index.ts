import type { FastifyPluginCallback } from 'fastify';
import { canManageEmployees } from '@office/sync-protocol';
import { DomainError } from '../../domain/errors';
import { listEmployeeSummaries } from '../../domain/users/employees';

/** GET /api/employees: Employee Management's cards, for managers only (spec section 6). */
export const employeeRoutes: FastifyPluginCallback = (app, _opts, done) => {
  const schema = {
    summary: "Employee Management's cards: each employee's presence and task figures (managers, admins)",
    refuses: ['forbidden'],
  } as const;
  app.get('/', { onRequest: app.authenticate, schema }, async (request) => {
    if (!canManageEmployees(request.actor)) throw new DomainError('forbidden');
    // Presence comes from the users' rows, which the socket layer keeps current.
    return { success: true, employees: await listEmployeeSummaries(app.db) };
  });
  done();
};
