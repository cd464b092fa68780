/** The parts of `navigator` the Badging API adds (absent in Firefox and in Safari outside an installed app). */
interface BadgingNavigator {
  setAppBadge?: (contents?: number) => Promise<void>;
  clearAppBadge?: () => Promise<void>;
}

/** Whether this browser can put a count on the installed app's icon. */
export const isAppBadgeSupported = (target: BadgingNavigator = navigator): boolean =>
  typeof target.setAppBadge === 'function';

/**
 * Shows `count` on the installed app's icon, or clears it at 0. Does nothing where badges are not
 * supported; a refusal (the app is not installed, the user turned badges off) is not an error for the app.
 */
export async function showAppBadge(count: number, target: BadgingNavigator = navigator): Promise<void> {
  if (!isAppBadgeSupported(target)) return;
  try {
    if (count > 0) await target.setAppBadge?.(count);
    else await (target.clearAppBadge ? target.clearAppBadge() : target.setAppBadge?.(0));
  } catch {
    // Nothing to show the user: the badge is a hint, the bell has the count.
  }
}
