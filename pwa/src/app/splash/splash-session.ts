/** sessionStorage key: the splash already ran in this tab, so reloads open straight away. */
const splashShownKey = 'splashShown';

export function hasSplashBeenShown(): boolean {
  try {
    return sessionStorage.getItem(splashShownKey) === 'true';
  } catch {
    return false;
  }
}

export function markSplashShown(): void {
  try {
    sessionStorage.setItem(splashShownKey, 'true');
  } catch {
    // Storage unavailable (private mode quotas): the splash simply shows again next time.
  }
}
