/**
 * How every browser of ours starts: Debian's Chromium (or CHROMIUM_PATH), never a downloaded one,
 * with the flags this machine needs. Shared by playwright.config.ts and the bench's browser figures.
 */
export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
};
