/**
 * Places in post bodies: the `location` object (message, classified ad and event sites) and the
 * `timezone` of events. See shared/spec/service-interface.md, "Post bodies by site".
 *
 * Country and subdivision codes are checked against the `iso-3166` package (ISO 3166-1 assigned
 * alpha-2 codes and ISO 3166-2 subdivision codes, shipped as data in the package), not a hand-written
 * list: updating that dependency updates what we accept. Time zones are checked against the IANA
 * database that Node's ICU carries, so no package is needed for them.
 */
import { iso31661, iso31662 } from 'iso-3166';
import { z } from 'zod';
import { line } from '../validation.js';

/** Assigned ISO 3166-1 alpha-2 codes, e.g. "US", "FR". */
const COUNTRIES: ReadonlySet<string> = new Set(iso31661.map((c) => c.alpha2));

/**
 * ISO 3166-2 code -> ISO 3166-1 alpha-2 country it belongs to. The data nests some subdivisions
 * (e.g. FR-75C's parent is the region FR-IDF), so the country is the code's prefix, not `parent`.
 */
const SUBDIVISION_COUNTRY: ReadonlyMap<string, string> = new Map(
  iso31662.map((s) => [s.code, s.code.slice(0, s.code.indexOf('-'))]),
);

const COUNTRY_SHAPE = /^[A-Z]{2}$/;
/** `<country>-<1 to 3 uppercase letters or digits>`, e.g. "US-CA", "FR-75C", "GB-BFS". */
const SUBDIVISION_SHAPE = /^[A-Z]{2}-[A-Z0-9]{1,3}$/;

/** True when `code` is an assigned ISO 3166-1 alpha-2 code, uppercase ("US"; not "us", not "ZZ"). */
export function isCountry(code: string): boolean {
  return COUNTRIES.has(code);
}

/** True when `sub` is a known ISO 3166-2 code (uppercase) and belongs to the country `country`. */
export function isSubdivisionOf(sub: string, country: string): boolean {
  return SUBDIVISION_COUNTRY.get(sub) === country && COUNTRIES.has(country);
}

/** ISO 3166-1 alpha-2 country code, uppercase, assigned. */
export const countryCode = z
  .string()
  .regex(COUNTRY_SHAPE, {
    message: 'must be an uppercase ISO 3166-1 alpha-2 country code, e.g. "US"',
    abort: true,
  })
  .refine(isCountry, { message: 'is not an assigned ISO 3166-1 alpha-2 country code' });

/** ISO 3166-2 subdivision code `<country>-<code>`, uppercase, known to the data set. */
export const subdivisionCode = z
  .string()
  .regex(SUBDIVISION_SHAPE, {
    message: 'must be an uppercase ISO 3166-2 subdivision code of the form <country>-<code>, e.g. "US-CA"',
    abort: true,
  })
  .refine((code) => SUBDIVISION_COUNTRY.has(code), { message: 'is not a known ISO 3166-2 subdivision code' });

const cityName = line().min(1).max(100);

/** Adds an issue on ["state"] when the state is not a subdivision of the country. */
function stateInCountry(value: { country: string; state?: string | undefined }, ctx: z.RefinementCtx): void {
  if (value.state !== undefined && !isSubdivisionOf(value.state, value.country)) {
    ctx.addIssue({
      code: 'custom',
      path: ['state'],
      message: `${value.state} is not a subdivision of ${value.country}`,
    });
  }
}

/** `location` of classified ads and events: city is a plain name. */
export const locationSchema = z
  .object({
    country: countryCode,
    state: subdivisionCode.optional(),
    city: cityName.optional(),
  })
  .superRefine(stateInCountry);

/** `location` of messages: city is a GeoNames place. */
export const messageLocationSchema = z
  .object({
    country: countryCode,
    state: subdivisionCode.optional(),
    city: z
      .object({
        geonames_id: z.number().int().positive(),
        name: cityName,
      })
      .optional(),
  })
  .superRefine(stateInCountry);

/**
 * Letters first, then letters, digits, "_", "-", "+" and "/" (e.g. "America/Port-au-Prince",
 * "Etc/GMT+5", "EST5EDT"). It keeps out UTC offsets such as "+01:00", which newer ICU builds accept
 * as a `timeZone` but which are not IANA zone names.
 */
const TIME_ZONE_SHAPE = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

let supportedTimeZones: ReadonlySet<string> | undefined;

/**
 * True when `name` is an IANA time zone name known to this runtime: a canonical name from
 * `Intl.supportedValuesOf('timeZone')`, or a name that `Intl.DateTimeFormat` accepts, which covers
 * aliases and links such as "UTC", "Etc/UTC", "Europe/Kiev" or "US/Pacific". Intl matches names
 * case-insensitively, so "europe/paris" is accepted too.
 */
export function isIanaTimeZone(name: string): boolean {
  if (typeof name !== 'string' || !TIME_ZONE_SHAPE.test(name)) return false;
  supportedTimeZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (supportedTimeZones.has(name)) return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Event `timezone`: an IANA zone name. */
export const timeZoneSchema = z
  .string()
  .refine(isIanaTimeZone, { message: 'must be an IANA time zone name, e.g. "Europe/Paris"' });
