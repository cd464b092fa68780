import { useCallback } from 'react';
import { useDialogs } from '../../components/dialogs';
import { useMutate } from '../../data/hooks';
import { deleteTaskConfirmation } from '../../app/confirmations';
import { failureTexts } from '../../app/failure-messages';

/** The message of a failed local write, or the spec's fallback (section 8). */
export const writeErrorMessage = (error: unknown): string =>
  error instanceof Error && error.message.trim() !== '' ? error.message : failureTexts.unknownError;

/** Asks for confirmation, then deletes the task locally (queued for the server). Resolves true if deleted. */
export function useDeleteTask(): (taskId: string) => Promise<boolean> {
  const mutate = useMutate();
  const { confirm } = useDialogs();
  return useCallback(
    async (taskId: string) => {
      if (!(await confirm(deleteTaskConfirmation))) return false;
      try {
        await mutate('task.delete', { id: taskId });
        return true;
      } catch (error) {
        // Spec section 8: failures other than those listed are only logged.
        console.error('Deleting the task failed', error);
        return false;
      }
    },
    [confirm, mutate],
  );
}
