import type { ModerationInput, Moderator, Verdict } from './moderator.js';

/**
 * The local moderator decides in microseconds; a real model takes seconds. This wrapper makes the
 * embedded default take `seconds` per decision (MODERATOR_DECISION_SECONDS) so clients meet the
 * queued state they will meet in production.
 */
export class EmulatedLatency implements Moderator {
  constructor(
    private readonly inner: Moderator,
    private readonly seconds: number,
  ) {}

  get name() {
    return this.inner.name;
  }

  async moderate(input: ModerationInput): Promise<Verdict> {
    if (this.seconds > 0) await new Promise((r) => setTimeout(r, this.seconds * 1000));
    return this.inner.moderate(input);
  }
}
