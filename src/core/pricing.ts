import { z } from 'zod';

/** Prices in micro-dollars (1 USD = 1,000,000). Served by GET /v1/pricing; every charge reads them here. */
export const PRICES = {
  currency: 'USD',
  unit: 'micro-dollars',
  post: 250_000,
  abuse_multiplier: 10,
  /** Messages site: a message carrying a link costs this on top of the post price. */
  link_surcharge: 50_000,
  edit: 50_000,
  search: 1_000,
  free_searches_per_day: 100,
  free_keyless_searches_per_day: 20,
  top_up_amounts: [5_000_000, 10_000_000, 25_000_000, 50_000_000, 100_000_000],
  top_up_min: 1_000_000,
  top_up_max: 500_000_000,
} as const;

export const MAX_STRIKES = 3;

export function pricingDocument() {
  return {
    currency: PRICES.currency,
    unit: PRICES.unit,
    post: PRICES.post,
    abuse_multiplier: PRICES.abuse_multiplier,
    abusive_post_total: PRICES.post * PRICES.abuse_multiplier,
    link_surcharge: PRICES.link_surcharge,
    edit: PRICES.edit,
    search: {
      price: PRICES.search,
      free_per_day_with_key: PRICES.free_searches_per_day,
      free_per_day_without_key: PRICES.free_keyless_searches_per_day,
      window_seconds: 86_400,
      resets: '00:00 UTC',
    },
    top_up: { amounts: PRICES.top_up_amounts, min: PRICES.top_up_min, max: PRICES.top_up_max },
    strikes_to_ban: MAX_STRIKES,
  };
}

/** GET /v1/pricing, the MCP tool get_pricing and the resource pricing://current. */
export const pricingView = z
  .object({
    currency: z.string(),
    unit: z.string(),
    post: z.number().int(),
    abuse_multiplier: z.number().int(),
    abusive_post_total: z.number().int(),
    link_surcharge: z.number().int(),
    edit: z.number().int(),
    search: z.object({
      price: z.number().int(),
      free_per_day_with_key: z.number().int(),
      free_per_day_without_key: z.number().int(),
      window_seconds: z.number().int(),
      resets: z.string(),
    }),
    top_up: z.object({
      amounts: z.array(z.number().int()).readonly(),
      min: z.number().int(),
      max: z.number().int(),
    }),
    strikes_to_ban: z.number().int(),
  })
  .describe('Prices in micro-dollars (1 USD = 1,000,000).');

const pricingMatches: ReturnType<typeof pricingDocument> extends z.input<typeof pricingView> ? true : false =
  true;
void pricingMatches;
