import type { MutationName } from '@office/sync-protocol';

/**
 * What a person reads when something fails: the sentences of spec section 8, in one table. Where the
 * spec has a sentence it comes first; a second sentence of ours (why, what to do) may follow it.
 */
export const failureTexts = {
  fillAllFields: 'Please fill in all fields',
  loginFailed: 'Invalid email or password',
  loginException: 'Login failed. Please try again.',
  googleFailed: 'Google login failed',
  googleException: 'Google login failed. Please try again.',
  registrationFailed: 'Registration failed',
  registrationException: 'Registration failed. Please try again.',
  profileUpdateFailed: 'Failed to update profile',
  passwordUpdateFailed: 'Failed to update password',
  avatarUploadFailed: 'Failed to upload avatar',
  photoFlashFailed: 'Failed to update profile photo',
  employeeDeleteFailed: 'Failed to delete employee',
  employeeDeleteException: 'Failed to delete employee. Please try again.',
  taskCreateFailed: 'Failed to create task: ',
  unknownError: 'Unknown error',
  commentFailed: 'Failed to add comment: ',
  taskUpdateFailed: 'Failed to update task: ',
  chatUploadFailed: 'Failed to upload files',
  chatUploadException: 'Upload failed. Please try again.',
  viewFileFailed: 'Failed to view file. Please try again.',
  downloadFileFailed: 'Failed to download file. Please try again.',
  viewFileSignedOut: 'You need to be logged in to view files',
  downloadFileSignedOut: 'You need to be logged in to download files',
  sendMessageFailed: 'Failed to send message',
  sendFilesFailed: 'Failed to send message with files',
  startConversationFailed: 'Failed to start conversation',
  deleteMessageFailed: 'Failed to delete message. Please try again.',
  sendMessageError: 'Error sending message. Please try again.',
  teamMembersFailed: 'Failed to load team members. Please try again.',
  invalidMember: 'Invalid member data. Please try again.',
} as const;

/** The spec's sentence for each queued write, when the server refuses it later (ours where the spec has none). */
const refusalSentences: Record<MutationName, string> = {
  'task.create': 'Failed to create task',
  'task.comment': 'Failed to add comment',
  'task.update': 'Failed to update task',
  'task.edit': 'Failed to update task',
  'task.setStatus': 'Failed to update task status',
  'task.delete': 'Failed to delete task',
  'chat.send': failureTexts.sendMessageFailed,
  'chat.sendFiles': failureTexts.chatUploadFailed,
  'chat.edit': 'Failed to edit message',
  'chat.delete': failureTexts.deleteMessageFailed,
  'chat.react': 'Failed to update your reaction',
  'dm.start': failureTexts.startConversationFailed,
  'dm.send': failureTexts.sendMessageFailed,
  'dm.sendFiles': failureTexts.sendFilesFailed,
  'dm.delete': failureTexts.deleteMessageFailed,
  'dm.markRead': 'Failed to mark the conversation as read',
  'dm.react': 'Failed to update your reaction',
  'notification.markRead': 'Failed to mark the notification as read',
  'notification.markAllRead': 'Failed to mark notifications as read',
  'notification.setPreferences': 'Failed to save notification preferences',
  'user.updateDetails': failureTexts.profileUpdateFailed,
};

/**
 * The alert for a write the server refused after it was queued: the spec's sentence with the server's
 * message ("Failed to create task: " plus the message, or "Unknown error").
 */
export function refusalMessage(name: MutationName, serverMessage: string | undefined): string {
  const sentence = refusalSentences[name];
  const reason = serverMessage?.trim() || failureTexts.unknownError;
  return sentence.endsWith('.') ? `${sentence} ${reason}` : `${sentence}: ${reason}`;
}
