import type { ConfirmRequest } from '../components/dialogs';

// What the app asks before it destroys something, in the spec's words where it has them (sections 2 and 5).

export const deleteTaskConfirmation: ConfirmRequest = {
  title: 'Delete Task',
  message: 'Are you sure you want to delete this task?',
  confirmLabel: 'Delete',
};

export const deleteMessageConfirmation: ConfirmRequest = {
  title: 'Delete Message',
  message: 'Are you sure you want to delete this message?',
  confirmLabel: 'Delete',
};

/** Logout while writes of this device have not reached the server: they would be lost. */
export function logoutWithUnsyncedConfirmation(unsynced: number): ConfirmRequest {
  const noun = unsynced === 1 ? 'change that has' : 'changes that have';
  return {
    title: 'Log out?',
    message: `You have ${unsynced} ${noun} not reached the server yet. If you log out now, they will be lost. Log out anyway?`,
    confirmLabel: 'Log out anyway',
  };
}
