import { describe, expect, it } from 'vitest';
import { prefilter, strongLanguage } from '../../src/core/moderation/prefilter.js';
import { story } from '../helpers/stories.js';

describe('slurs and profanity: "slurs/profanity via a maintained library"', () => {
  it('counts profanity, including leetspeak, and names distinct slurs', () => {
    expect(strongLanguage('What the shit, you dumb bitch.')).toEqual({ slurs: [], profanities: 2 });
    expect(strongLanguage('n1gger and kike and kike').slurs).toEqual(['kike', 'nigger']);
  });

  it('does not flag innocent words that contain a bad one (Scunthorpe, assassin, cocktail)', () => {
    expect(strongLanguage('An assassin from Scunthorpe ordered a cocktail at the class reunion.')).toEqual({
      slurs: [],
      profanities: 0,
    });
  });

  it('adds language.* signals as evidence only: they never route a post on their own', () => {
    const clean = prefilter('Night shift', story());
    const rough = prefilter('Night shift', `${story()}\n\n"Shit," said the sergeant. "Fuck this rain."`);
    expect(clean.signals.map((s) => s.id)).not.toContain('language.profanity');
    expect(rough.signals.find((s) => s.id === 'language.profanity')?.detail).toBe('2 profanities');
    expect(rough.hint).toBe('model');
    const slur = prefilter('Night shift', `${story()}\n\nHe called the neighbour a kike and walked off.`);
    expect(slur.signals.find((s) => s.id === 'language.slur')).toMatchObject({ detail: '1 slur (kike)' });
    expect(slur.hint).not.toBe('review');
    expect(slur.hint).not.toBe('reject_low_quality');
  });
});
