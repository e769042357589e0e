import { randomBytes } from 'node:crypto';

const NAMES = ['Mara', 'Ilya', 'Odette', 'Kofi', 'Ren', 'Beatriz', 'Tobias', 'Anouk', 'Samir', 'Lena'];
const PLACES = [
  'the frozen harbour',
  'the orchard wall',
  'the abandoned mill',
  'the market square',
  'the salt marsh',
];
const THINGS = [
  'a brass lantern',
  'a folded map',
  'a jar of honey',
  'a cracked compass',
  'a bundle of letters',
];
const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)] as T;

/** A plausible story of about `words` words in paragraphs, unique per call. */
export function story(words = 220): string {
  const paras: string[] = [];
  let count = 0;
  while (count < words) {
    const s = [
      `${pick(NAMES)} carried ${pick(THINGS)} past ${pick(PLACES)} before the sun was up, and nobody asked why.`,
      `It was the kind of morning when the town seemed to hold its breath, and even the gulls were quiet.`,
      `Later, in the warm kitchen, ${pick(NAMES)} told the story again and changed the ending a little.`,
    ].join(' ');
    paras.push(s);
    count += s.split(/\s+/).length;
  }
  paras.push(`That is how it is remembered in ${randomBytes(3).toString('hex')}, more or less.`);
  return paras.join('\n\n');
}
