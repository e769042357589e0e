/** Time is a dependency: every rule that reads the time reads it from a Clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

const DAY_MS = 86_400_000;

/** Start of the UTC day that contains `at`. */
export function utcDayStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** Whole seconds from `at` until the next 00:00 UTC (at least 1). */
export function secondsToUtcMidnight(at: Date): number {
  const next = utcDayStart(at).getTime() + DAY_MS;
  return Math.max(1, Math.ceil((next - at.getTime()) / 1000));
}
