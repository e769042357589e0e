import { z } from 'zod';
import { countryCode, subdivisionCode } from '../sites/place.js';
import { topicSlug } from './bodies.js';
import { publicPost } from './views.js';

export const listQuery = z.strictObject({
  topic: topicSlug.optional(),
  country: countryCode.optional(),
  state: subdivisionCode.optional(),
  city: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

export const createQuery = z.strictObject({
  dry_run: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: validate, price, check standing and run the prefilter; store and charge nothing.'),
});

export const postIdParams = z.object({ id: z.string().min(1).max(64) });

/** GET /v1/posts and the MCP tool list_posts. */
export const postList = z.object({ data: z.array(publicPost), next_cursor: z.string().nullable() });
