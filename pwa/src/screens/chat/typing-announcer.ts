/** At most one "typing" every 2 s; "stopped" after 3 s without a keystroke, or on send. */
export const typingThrottleMs = 2_000;
export const typingIdleMs = 3_000;

/**
 * Tells the server when this user types in the team chat, without flooding it: the first
 * keystroke announces at once, later ones at most every `throttleMs`; a pause of `idleMs`, a
 * send or leaving the screen announces the stop, once.
 */
export class TypingAnnouncer {
  private lastStartAt = Number.NEGATIVE_INFINITY;
  private active = false;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly send: (isTyping: boolean) => void,
    private readonly now: () => number = Date.now,
    private readonly throttleMs: number = typingThrottleMs,
    private readonly idleMs: number = typingIdleMs,
  ) {}

  /** A keystroke in the composer; an emptied composer counts as a stop. */
  input(hasText: boolean): void {
    if (!hasText) {
      this.stop();
      return;
    }
    const now = this.now();
    if (now - this.lastStartAt >= this.throttleMs) {
      this.lastStartAt = now;
      this.active = true;
      this.send(true);
    }
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.stop(), this.idleMs);
  }

  /** The user sent, paused or left: announces the stop if a start was announced. */
  stop(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (!this.active) return;
    this.active = false;
    this.lastStartAt = Number.NEGATIVE_INFINITY;
    this.send(false);
  }
}
