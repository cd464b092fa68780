/** Business constants of spec section 9 and our own limits. */
export const limits = {
  passwordMinLength: 6,
  passwordMaxLength: 256,
  nameMaxLength: 100,
  emailMaxLength: 254,
  jsonBodyBytes: 1_048_576,
  /** How deep arrays and objects may nest in a request or a queued write's arguments (ours reach about 6). */
  jsonNestingMax: 32,
  tokenTtlSeconds: 7 * 24 * 60 * 60,
  loginFailuresAllowed: 5,
  loginFailureWindowMs: 30 * 60 * 1000,
  pushBatchMax: 100,
  pullPageDefault: 500,
  pullPageMax: 1000,
  httpTimeoutMs: 10_000,
  mobileBreakpointPx: 768,
  avatarMaxBytes: 5_242_880,
  /** Without input for this long, a user shows as away. */
  presenceIdleMs: 5 * 60 * 1000,
  /** An invitation link admits for this long after it was made. */
  invitationTtlDays: 7,
  /** The most people one invitation link may admit. */
  invitationMaxUses: 100,
  /** Characters of a one-time password-reset code (without its dashes). */
  resetCodeLength: 12,
  /** A one-time code signs in for this long after the reset. */
  resetCodeTtlHours: 72,
} as const;

/**
 * What a device always holds of the workspace's history (issue 46), whatever its length: the newest messages of
 * the team chat and of each direct conversation, the completed tasks changed in the last days (open tasks always)
 * and its person's newest notices (unread ones always). Older history comes from the server on demand. A server
 * may hold its devices to a smaller window (tests set it lower); each pull answer tells the device its window.
 */
export const historyWindow = {
  teamChatMessages: 1000,
  directMessages: 200,
  completedTaskDays: 30,
  notifications: 200,
} as const;

/** Splash screen timings (ms). */
export const splashTimings = {
  stages: [100, 800, 1600, 2400],
  fadeFrom: 2400,
  done: 3000,
  handOver: 100,
} as const;

/** Backoff of the client's push loop: start 1 s, doubling, cap 60 s, with jitter. */
export const syncBackoff = { initialMs: 1000, maxMs: 60_000, jitter: 0.5 } as const;

/** Socket.IO client reconnection settings of spec section 9. */
export const socketReconnection = {
  reconnectionDelay: 1000,
  reconnectionDelayMax: 5000,
  randomizationFactor: 0.5,
  timeout: 20_000,
} as const;
