import type { Db } from '../db/client.js';
import type { Clock } from './clock.js';
import type { Mailer } from './mail/mailer.js';
import type { PaymentProvider } from './payments/provider.js';

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** What every core service may use. Built once in the composition root (src/platform.ts). */
export interface Deps {
  db: Db;
  clock: Clock;
  baseUrl: string;
  mailer: Mailer;
  payments: PaymentProvider;
  log: Logger;
}
