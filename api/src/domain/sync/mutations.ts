import type { MutationName } from '@office/sync-protocol';
import type { Command } from '../commands';
import { updateDetailsCommand } from '../users/commands';
import type { z } from 'zod';

/** The command each client mutation runs: the same one its REST route calls. */
export const mutationCommands: Record<MutationName, Command<z.ZodType, unknown>> = {
  'user.updateDetails': updateDetailsCommand,
};
