import { z } from 'zod';
import { PRICES } from '../pricing.js';
import { locationSchema, messageLocationSchema, timeZoneSchema } from '../sites/place.js';
import type { SiteKind } from '../sites/sites.js';
import { line, parseOrThrow, validationProblem } from '../validation.js';
import { CONTROL_CHARS, countWords, LINK_PATTERN, normalizeText } from './text.js';

/** Story limits (DESIGN.md "Posts"). */
export const STORY_LIMITS = {
  titleMax: 200,
  wordsMin: 150,
  wordsMax: 2500,
  topicsMax: 5,
  topicMax: 40,
} as const;

const plainText = z
  .string()
  .refine((s) => !CONTROL_CHARS.test(s), 'must be plain text without control characters')
  .transform(normalizeText);

const title = line('title is one line: no line breaks, tabs or control characters')
  .transform(normalizeText)
  .pipe(
    z
      .string()
      .min(1, 'title is required')
      .max(STORY_LIMITS.titleMax, `title is at most ${STORY_LIMITS.titleMax} characters`),
  );

const words = (min: number, max: number, what: string) =>
  plainText.superRefine((s, ctx) => {
    const n = countWords(s);
    if (n < min || n > max)
      ctx.addIssue({ code: 'custom', message: `${what} has ${n} words; it must have ${min} to ${max}` });
  });

export const topicSlug = z
  .string()
  .max(STORY_LIMITS.topicMax, `a topic is at most ${STORY_LIMITS.topicMax} characters`)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'a topic is a lowercase slug such as "sea" or "short-fiction"');

const topics = z
  .array(topicSlug)
  .max(STORY_LIMITS.topicsMax, `at most ${STORY_LIMITS.topicsMax} topics`)
  .refine((t) => new Set(t).size === t.length, 'topics must not repeat')
  .default([]);

export const storyBody = z.strictObject({
  title,
  body: words(STORY_LIMITS.wordsMin, STORY_LIMITS.wordsMax, 'body').describe(
    'Plain text, 150 to 2,500 words; blank lines separate paragraphs.',
  ),
  topics,
});

export const messageBody = z.strictObject({
  text: plainText.pipe(z.string().min(1, 'text is required').max(1000, 'text is at most 1,000 characters')),
  topics,
  location: messageLocationSchema.optional(),
});

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
export const CLASSIFIED_CATEGORIES = [
  'for-sale',
  'wanted',
  'housing',
  'jobs',
  'services',
  'vehicles',
  'community',
  'other',
] as const;
export const CONDITIONS = ['new', 'like-new', 'good', 'fair', 'for-parts'] as const;
const DAY_MS = 86_400_000;

export const classifiedBody = z.strictObject({
  title,
  body: words(1, 1000, 'body'),
  category: z.enum(CLASSIFIED_CATEGORIES),
  price: z.strictObject({
    amount: z.number().min(0, 'amount is not negative').max(1e12),
    currency: z.string().refine((c) => CURRENCIES.has(c), 'currency is an ISO 4217 code such as "USD"'),
  }),
  condition: z.enum(CONDITIONS).optional(),
  topics,
  location: locationSchema,
  expires_at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('Default 30 days after posting; at most 90.'),
});

export const eventBody = z
  .strictObject({
    title,
    body: words(1, 1000, 'body'),
    timezone: timeZoneSchema,
    starts_at: z.iso.datetime({ offset: true }),
    ends_at: z.iso.datetime({ offset: true }),
    topics,
    location: locationSchema,
  })
  .superRefine((e, ctx) => {
    if (Date.parse(e.ends_at) <= Date.parse(e.starts_at)) {
      ctx.addIssue({ code: 'custom', path: ['ends_at'], message: 'ends_at must be after starts_at' });
    }
  });

export const BODY_SCHEMAS = {
  stories: storyBody,
  messages: messageBody,
  classifieds: classifiedBody,
  events: eventBody,
} as const;

/** What the posting service stores, whatever the site. */
export interface NormalizedPost {
  title: string | null;
  body: string;
  topics: string[];
  fields: Record<string, unknown>;
  country: string | null;
  state: string | null;
  city: string | null;
  visibleUntil: Date | null;
  startsAt: Date | null;
  price: number;
}

/** Validates a body for the site called (422 with pointers) and reduces it to one stored shape. */
export function normalizeBody(site: SiteKind, input: unknown, now: Date): NormalizedPost {
  switch (site) {
    case 'stories': {
      const b = parseOrThrow(storyBody, input);
      return { ...base(b.title, b.body, b.topics), price: PRICES.post };
    }
    case 'messages': {
      const b = parseOrThrow(messageBody, input);
      const link = LINK_PATTERN.test(b.text);
      return {
        ...base(null, b.text, b.topics, b.location ? { location: b.location } : {}),
        ...place(b.location?.country, b.location?.state, b.location?.city?.name),
        price: PRICES.post + (link ? PRICES.link_surcharge : 0),
      };
    }
    case 'classifieds': {
      const b = parseOrThrow(classifiedBody, input);
      const expires = b.expires_at ? new Date(b.expires_at) : new Date(now.getTime() + 30 * DAY_MS);
      if (expires.getTime() <= now.getTime() || expires.getTime() > now.getTime() + 90 * DAY_MS) {
        throw validationProblem([
          { pointer: '/expires_at', detail: 'expires_at must be in the next 90 days' },
        ]);
      }
      const { title: t, body, topics: tp, location, ...rest } = b;
      return {
        ...base(t, body, tp, { ...rest, location, expires_at: expires.toISOString() }),
        ...place(location.country, location.state, location.city),
        visibleUntil: expires,
        price: PRICES.post,
      };
    }
    case 'events': {
      const b = parseOrThrow(eventBody, input);
      const { title: t, body, topics: tp, location, ...rest } = b;
      return {
        ...base(t, body, tp, { ...rest, location }),
        ...place(location.country, location.state, location.city),
        visibleUntil: new Date(b.ends_at),
        startsAt: new Date(b.starts_at),
        price: PRICES.post,
      };
    }
  }
}

function base(
  title: string | null,
  body: string,
  topics: string[],
  fields: Record<string, unknown> = {},
): NormalizedPost {
  return {
    title,
    body,
    topics,
    fields,
    country: null,
    state: null,
    city: null,
    visibleUntil: null,
    startsAt: null,
    price: PRICES.post,
  };
}

function place(country?: string, state?: string, city?: string) {
  return { country: country ?? null, state: state ?? null, city: city ?? null };
}
