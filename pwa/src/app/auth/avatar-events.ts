/** Window event fired after a user's avatar changed (spec sections 2 and 4). */
export const avatarUpdatedEvent = 'avatarUpdated';

/** The `detail` of an `avatarUpdated` event. */
export interface AvatarUpdatedDetail {
  userId: string;
}

/** Tells every view that this user's avatar changed. */
export function dispatchAvatarUpdated(userId: string): void {
  window.dispatchEvent(new CustomEvent<AvatarUpdatedDetail>(avatarUpdatedEvent, { detail: { userId } }));
}

/** Reads the user id from an `avatarUpdated` event, or null when it carries none. */
export function avatarUpdatedUserId(event: Event): string | null {
  if (!(event instanceof CustomEvent)) {
    return null;
  }
  const detail: unknown = event.detail;
  if (typeof detail === 'object' && detail !== null && typeof (detail as { userId?: unknown }).userId === 'string') {
    return (detail as { userId: string }).userId;
  }
  return null;
}
