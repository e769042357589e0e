import type { Executor } from '../db/client.js';
import type { SiteKind } from './sites/sites.js';

/** Job kinds and their payloads. */
export interface JobPayloads {
  moderate: { post_id: string };
  /** `endpoint_id` bounds the deliveries running at once per endpoint (absent on jobs queued before it existed). */
  'deliver-webhook': { delivery_id: string; endpoint_id?: string };
  sweep: Record<string, never>;
  /** Incremental build of these URL paths of one site (src/web/site-build.ts). */
  'site-rebuild': { site: SiteKind; paths: string[] };
}
export type JobName = keyof JobPayloads;

export interface SendOptions {
  startAfter?: Date;
  singletonKey?: string;
  retryLimit?: number;
  retryDelay?: number;
  retryBackoff?: boolean;
}

/**
 * The port through which core schedules work: `send` takes the transaction that causes the job,
 * so the state change and its job commit together or not at all. It answers the job's id, or
 * null when a singleton job with that key is already waiting. src/jobs/queue.ts implements it.
 */
export interface JobSender {
  send<N extends JobName>(
    exec: Executor,
    name: N,
    data: JobPayloads[N],
    options?: SendOptions,
  ): Promise<string | null>;
}
