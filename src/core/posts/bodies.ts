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

/** The stored text and members of a post or revision, from which its creation body is rebuilt. */
export interface StoredText {
  title: string | null;
  body: string;
  topics: string[];
  fields: Record<string, unknown>;
}

/** The member that holds the text on each site (a message has `text`, the others `body`). */
const TEXT_MEMBER: Record<SiteKind, string> = {
  stories: 'body',
  messages: 'text',
  classifieds: 'body',
  events: 'body',
};

/**
 * The body that would create this text on its site: the inverse of normalizeBody, for any site
 * (the members beyond title, text and topics are the stored `fields`).
 */
export function creationBody(site: SiteKind, t: StoredText): Record<string, unknown> {
  return {
    ...(t.title === null ? {} : { title: t.title }),
    [TEXT_MEMBER[site]]: t.body,
    topics: t.topics,
    ...t.fields,
  };
}

/**
 * The PATCH body of an edit, for the API description and the MCP tool: every member of the site's
 * creation body, each optional (a refinement across members, such as an event's ends_at after
 * starts_at, is checked on the merged body by normalizeBody).
 */
export function editSchema(site: SiteKind) {
  return z.strictObject(BODY_SCHEMAS[site].shape).partial();
}

/**
 * An edit: `patch` (any subset of the creation members) over the current text, validated exactly
 * like creation. 422 when the patch is not an object, names no member, or changes nothing.
 */
export function normalizeEdit(
  site: SiteKind,
  current: StoredText,
  patch: unknown,
  now: Date,
): NormalizedPost {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw validationProblem([
      { pointer: '', detail: 'the body is a JSON object with the members to change' },
    ]);
  }
  if (Object.keys(patch).length === 0) {
    throw validationProblem([
      { pointer: '', detail: 'an edit names at least one member of the post (a story: title, body, topics)' },
    ]);
  }
  const next = normalizeBody(site, { ...creationBody(site, current), ...patch }, now);
  const same =
    next.title === current.title &&
    next.body === current.body &&
    JSON.stringify(next.topics) === JSON.stringify(current.topics) &&
    sameJson(next.fields, current.fields);
  if (same) {
    throw validationProblem([
      { pointer: '', detail: 'the edit changes nothing: the published revision already reads so' },
    ]);
  }
  return next;
}

function sameJson(a: unknown, b: unknown): boolean {
  const canon = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>)
            .filter(([, x]) => x !== undefined)
            .sort(([x], [y]) => (x < y ? -1 : 1))
            .map(([k, x]) => [k, canon(x)]),
        )
      : Array.isArray(v)
        ? v.map(canon)
        : v;
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}

/** What an edit costs: the edit price plus the surcharges the new text pays when posted (a message with a link). */
export function editPrice(next: NormalizedPost): number {
  return PRICES.edit + (next.price - PRICES.post);
}
