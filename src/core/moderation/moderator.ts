import type { AbuseCategory } from '../policy/types.js';
import type { PrefilterResult } from './prefilter.js';

export type Decision = 'publish' | 'review' | 'reject';
export type RejectionCategory = 'low_quality' | AbuseCategory;

export interface Verdict {
  decision: Decision;
  /** Set when decision is reject (and, for review, what the model suspects). */
  category?: RejectionCategory;
  reason: string;
  /** 0..1. An abuse rejection strikes only when confident enough (and only from a model or a person). */
  confidence: number;
  /** Whether this verdict may add a strike. Rules alone never strike. */
  strike: boolean;
  /** Audit: what produced it. */
  source: 'prefilter' | 'local' | 'openai' | 'person';
  details?: Record<string, unknown>;
}

export interface ModerationInput {
  id: string;
  title: string | null;
  body: string;
  prefilter: PrefilterResult;
}

/** A moderator turns a post into a verdict. `local` runs in process; `openai` calls a model server. */
export interface Moderator {
  readonly name: 'local' | 'openai';
  moderate(input: ModerationInput): Promise<Verdict>;
}

/**
 * The embedded default: the prefilter's routing plus a cautious reading of its signals.
 * It never strikes: anything that looks abusive goes to a person.
 */
export class LocalModerator implements Moderator {
  readonly name = 'local';

  async moderate({ prefilter: pf }: ModerationInput): Promise<Verdict> {
    const details = { signals: pf.signals, metrics: pf.metrics };
    const top = [...pf.signals].sort((a, b) => b.score - a.score)[0];
    switch (pf.hint) {
      case 'reject_low_quality':
        return {
          decision: 'reject',
          category: 'low_quality',
          reason: `The text does not read as a story: ${top?.detail ?? 'it fails the quality bar'}. The fee is refunded.`,
          confidence: top?.score ?? 0.8,
          strike: false,
          source: 'local',
          details,
        };
      case 'review':
        return {
          decision: 'review',
          category: top?.id.startsWith('injection') ? 'agent_injection' : 'spam',
          reason: `A person will read it: ${top?.detail ?? 'the rules flagged it'}.`,
          confidence: top?.score ?? 0.5,
          strike: false,
          source: 'local',
          details,
        };
      default:
        return {
          decision: 'publish',
          reason: 'Meets the quality bar; no policy signal.',
          confidence: 0.7,
          strike: false,
          source: 'local',
          details,
        };
    }
  }
}
