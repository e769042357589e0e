import type { Clock } from '../../src/core/clock.js';

/**
 * Today's date (UTC) at 10:00: the hour is fixed, so no test depends on the hour it runs at, and
 * the date is the real one, so what the clock stamps and a real peer judges by its own clock
 * (a browser's cookie, a webhook or Stripe signature timestamp) stays within hours of it.
 */
export function todayAtTen(): Date {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 10));
}

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  #t: number;
  constructor(start: string | Date = todayAtTen()) {
    this.#t = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#t);
  }
  set(at: string | Date): void {
    this.#t = new Date(at).getTime();
  }
  advance(ms: number): void {
    this.#t += ms;
  }
}
