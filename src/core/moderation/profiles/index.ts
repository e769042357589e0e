import { gptOssSafeguardProfile } from './gpt-oss-safeguard.js';
import { jsonProfile } from './json.js';
import { llamaGuardProfile } from './llama-guard.js';
import { qwen3guardProfile } from './qwen3guard.js';
import type { ModeratorProfile, ModeratorProfileName, ProfileOptions } from './types.js';

export type * from './types.js';

/** One factory per MODERATOR_PROFILE value (the Record keeps them in step with MODERATOR_PROFILE_NAMES). */
const PROFILES: Record<ModeratorProfileName, (opts: ProfileOptions) => ModeratorProfile> = {
  json: jsonProfile,
  'gpt-oss-safeguard': gptOssSafeguardProfile,
  qwen3guard: qwen3guardProfile,
  'llama-guard': llamaGuardProfile,
};

/** The name is checked where the setting is read (config.ts, from MODERATOR_PROFILE_NAMES). */
export function createProfile(name: ModeratorProfileName, opts: ProfileOptions): ModeratorProfile {
  return PROFILES[name](opts);
}
