import type { Clock } from '../../src/core/clock.js';

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  #t: number;
  constructor(start: string | Date = '2026-11-22T10:00:00Z') {
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
