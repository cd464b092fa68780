/**
 * Two facts about passwords this device keeps across reloads (localStorage, like the session itself): whose session
 * must choose a new password before anything else (they signed in with a one-time code), and that the last session
 * ended because a manager or admin reset the password (the sign-in screen says so).
 */
const passwordChangeKey = 'passwordChangeRequiredFor';
const passwordResetNoticeKey = 'passwordWasReset';

export const markPasswordChangeRequired = (userId: string): void => localStorage.setItem(passwordChangeKey, userId);

export const isPasswordChangeRequired = (userId: string): boolean => localStorage.getItem(passwordChangeKey) === userId;

export const clearPasswordChangeRequired = (): void => localStorage.removeItem(passwordChangeKey);

/** Whose password was reset: the sign-in screen says so and offers that email, until someone signs in here. */
export const markPasswordWasReset = (email: string): void => localStorage.setItem(passwordResetNoticeKey, email);

export const passwordWasResetFor = (): string | null => localStorage.getItem(passwordResetNoticeKey);

export const clearPasswordWasReset = (): void => localStorage.removeItem(passwordResetNoticeKey);
