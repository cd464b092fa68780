import { z } from 'zod';
import { idSchema } from './ids';
import { limits } from './limits';
import { mutationNames } from './commands/index';
import { errorCodes } from './errors';

/** One queued write: the client's next mutation id, the command name, its arguments, and when the user made it. */
export const mutationSchema = z.object({
  id: z.number().int().positive(),
  name: z.enum(mutationNames),
  args: z.unknown(),
  at: z.iso.datetime({ offset: true }),
});
export type Mutation = z.infer<typeof mutationSchema>;

/** POST /api/sync/push body: mutation ids ascending and contiguous. */
export const pushRequestSchema = z.object({
  clientId: idSchema,
  mutations: z.array(mutationSchema).min(1).max(limits.pushBatchMax),
});
export type PushRequest = z.infer<typeof pushRequestSchema>;

/** What became of one mutation. A duplicate repeats the stored outcome of its first run. */
export const mutationOutcomeSchema = z.discriminatedUnion('status', [
  z.object({ id: z.number().int(), status: z.literal('applied') }),
  z.object({
    id: z.number().int(),
    status: z.literal('duplicate'),
    original: z.enum(['applied', 'rejected']),
    code: z.enum(errorCodes).optional(),
    message: z.string().optional(),
  }),
  z.object({ id: z.number().int(), status: z.literal('rejected'), code: z.enum(errorCodes), message: z.string() }),
]);
export type MutationOutcome = z.infer<typeof mutationOutcomeSchema>;

/** POST /api/sync/push answer: one outcome per processed mutation, the change-log version reached. */
export const pushResponseSchema = z.object({
  outcomes: z.array(mutationOutcomeSchema),
  lastMutationId: z.number().int(),
  version: z.number().int(),
});
export type PushResponse = z.infer<typeof pushResponseSchema>;

/** The answer of an upload that carried a queued mutation. */
export const uploadOutcomeResponseSchema = z.object({ outcome: mutationOutcomeSchema.or(z.literal('gap')) });
export type UploadOutcomeResponse = z.infer<typeof uploadOutcomeResponseSchema>;
