import type { FastifyInstance } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';

/**
 * The routes of a plugin declare their body, query and params with sync-protocol's zod schemas; this compiles
 * them (refusals become `invalid_input` in the error handler) and types the handlers from them.
 */
export function withZodSchemas(app: FastifyInstance) {
  app.setValidatorCompiler(validatorCompiler);
  return app.withTypeProvider<ZodTypeProvider>();
}
