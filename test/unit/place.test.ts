import { describe, expect, it } from 'vitest';
import {
  countryCode,
  isCountry,
  isIanaTimeZone,
  isSubdivisionOf,
  locationSchema,
  messageLocationSchema,
  subdivisionCode,
  timeZoneSchema,
} from '../../src/core/sites/place.js';

describe('country and subdivision codes', () => {
  it('accepts US and US-CA', () => {
    expect(isCountry('US')).toBe(true);
    expect(isSubdivisionOf('US-CA', 'US')).toBe(true);
    expect(countryCode.safeParse('US').success).toBe(true);
    expect(subdivisionCode.safeParse('US-CA').success).toBe(true);
    expect(subdivisionCode.safeParse('FR-75C').success).toBe(true);
  });

  it('refuses lowercase codes', () => {
    expect(isCountry('us')).toBe(false);
    expect(countryCode.safeParse('us').success).toBe(false);
    expect(subdivisionCode.safeParse('us-ca').success).toBe(false);
    const r = locationSchema.safeParse({ country: 'us', state: 'US-CA' });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path)).toEqual([['country']]);
  });

  it('refuses the unassigned country ZZ', () => {
    expect(isCountry('ZZ')).toBe(false);
    const r = countryCode.safeParse('ZZ');
    expect(r.success).toBe(false);
    expect(r.error?.issues).toHaveLength(1);
    expect(locationSchema.safeParse({ country: 'ZZ' }).success).toBe(false);
  });

  it('refuses unknown subdivision codes', () => {
    expect(subdivisionCode.safeParse('FR-CA').success).toBe(false);
    expect(subdivisionCode.safeParse('US-ZZ').success).toBe(false);
    expect(subdivisionCode.safeParse('US').success).toBe(false);
  });
});

describe('locationSchema', () => {
  it('accepts a valid location', () => {
    expect(locationSchema.parse({ country: 'US', state: 'US-CA', city: 'San Francisco' })).toEqual({
      country: 'US',
      state: 'US-CA',
      city: 'San Francisco',
    });
    expect(locationSchema.safeParse({ country: 'FR' }).success).toBe(true);
    expect(locationSchema.safeParse({ country: 'FR', state: 'FR-75C' }).success).toBe(true);
  });

  it('refuses a subdivision of another country, pointing at state', () => {
    expect(isSubdivisionOf('US-CA', 'FR')).toBe(false);
    const r = locationSchema.safeParse({ country: 'FR', state: 'US-CA' });
    expect(r.success).toBe(false);
    expect(r.error?.issues).toHaveLength(1);
    expect(r.error?.issues[0]?.path).toEqual(['state']);
    expect(r.error?.issues[0]?.message).toBe('US-CA is not a subdivision of FR');

    const m = messageLocationSchema.safeParse({ country: 'CA', state: 'US-CA' });
    expect(m.error?.issues[0]?.path).toEqual(['state']);
    expect(m.error?.issues[0]?.message).toBe('US-CA is not a subdivision of CA');
  });

  it('checks the city length', () => {
    expect(locationSchema.safeParse({ country: 'US', city: '' }).success).toBe(false);
    expect(locationSchema.safeParse({ country: 'US', city: 'x'.repeat(100) }).success).toBe(true);
    expect(locationSchema.safeParse({ country: 'US', city: 'x'.repeat(101) }).success).toBe(false);
  });
});

describe('messageLocationSchema', () => {
  it('takes a GeoNames city object', () => {
    const city = { geonames_id: 5391959, name: 'San Francisco' };
    expect(messageLocationSchema.safeParse({ country: 'US', state: 'US-CA', city }).success).toBe(true);
  });

  it('refuses other city shapes', () => {
    const bad = [
      'San Francisco',
      { name: 'San Francisco' },
      { geonames_id: 0, name: 'San Francisco' },
      { geonames_id: -1, name: 'San Francisco' },
      { geonames_id: 1.5, name: 'San Francisco' },
      { geonames_id: '5391959', name: 'San Francisco' },
      { geonames_id: 5391959, name: '' },
      { geonames_id: 5391959, name: 'x'.repeat(101) },
    ];
    for (const city of bad) {
      const r = messageLocationSchema.safeParse({ country: 'US', city });
      expect(r.success, JSON.stringify(city)).toBe(false);
      expect(r.error?.issues[0]?.path[0]).toBe('city');
    }
  });
});

describe('isIanaTimeZone', () => {
  it('accepts zone names and aliases', () => {
    expect(isIanaTimeZone('Europe/Paris')).toBe(true);
    expect(isIanaTimeZone('UTC')).toBe(true);
    expect(isIanaTimeZone('Europe/Kiev')).toBe(true);
    expect(isIanaTimeZone('America/Argentina/Buenos_Aires')).toBe(true);
    expect(timeZoneSchema.safeParse('Europe/Paris').success).toBe(true);
  });

  it('refuses unknown names, offsets and the empty string', () => {
    expect(isIanaTimeZone('Mars/Olympus')).toBe(false);
    expect(isIanaTimeZone('')).toBe(false);
    expect(isIanaTimeZone('+01:00')).toBe(false);
    expect(isIanaTimeZone(' Europe/Paris')).toBe(false);
    expect(timeZoneSchema.safeParse('Mars/Olympus').success).toBe(false);
  });
});
