/**
 * Near-duplicate detection: MinHash over word 5-shingles.
 *
 * `fingerprint(text)` is a short, serialisable string (store one per post); `similarity(a, b)`
 * estimates the Jaccard similarity of the two texts' shingle sets, 0..1. Unrelated stories
 * share almost no 5-shingles (similarity near 0); the same story with a few words or names
 * changed keeps most of them (0.5 and above). The moderator rejects a post as low_quality when
 * its best match among recent posts of the corpus and of its author reaches
 * NEAR_DUPLICATE_THRESHOLD.
 *
 * Deterministic and dependency-free: 128 hash functions derived from two 32-bit hashes of each
 * shingle (Kirsch-Mitzenmacher), keeping the low 16 bits of each minimum (b-bit MinHash, so a
 * chance collision is 1 in 65,536 and the fingerprint stays at 512 hex characters).
 */

/** Version prefix: fingerprints of different versions are never compared (similarity 0). */
const VERSION = 'mh1';
export const SHINGLE_WORDS = 5;
export const MINHASH_SIZE = 128;

/**
 * A post whose similarity to an earlier post reaches this is a near duplicate. Calibrated on the
 * policy's own texts: distinct stories score below 0.1 (and two outputs of a templated test
 * generator well below 0.35), while a story re-posted with a few words or names changed keeps
 * 0.55 or more; see test/unit/near-duplicate.test.ts.
 */
export const NEAR_DUPLICATE_THRESHOLD = 0.5;

/** Lower-case word tokens (letters and digits), after Unicode compatibility normalisation. */
export function shingleWords(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** The set of word n-grams (n = SHINGLE_WORDS); a text shorter than n is one shingle. */
export function shingles(text: string, n = SHINGLE_WORDS): Set<string> {
  const words = shingleWords(text);
  const out = new Set<string>();
  if (words.length === 0) return out;
  if (words.length < n) {
    out.add(words.join(' '));
    return out;
  }
  for (let i = 0; i + n <= words.length; i++) out.add(words.slice(i, i + n).join(' '));
  return out;
}

/** FNV-1a over UTF-16 code units, 32-bit, with a seed. */
function fnv1a(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** MurmurHash3's 32-bit finaliser: a good avalanche for derived hashes. */
function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** The MinHash signature of a text: MINHASH_SIZE 32-bit minima (empty text: all 0xffffffff). */
export function minhash(text: string): Uint32Array {
  const mins = new Uint32Array(MINHASH_SIZE).fill(0xffffffff);
  for (const sh of shingles(text)) {
    const h1 = fmix32(fnv1a(sh, 0));
    const h2 = fmix32(fnv1a(sh, 0x9e3779b9)) | 1;
    for (let i = 0; i < MINHASH_SIZE; i++) {
      const v = fmix32((h1 + Math.imul(i, h2)) >>> 0);
      if (v < mins[i]!) mins[i] = v;
    }
  }
  return mins;
}

/**
 * A serialisable fingerprint: `mh1:` followed by 128 four-digit hex values (the low 16 bits
 * of each minimum). An empty text (no words) gives `mh1:` alone.
 */
export function fingerprint(text: string): string {
  if (shingleWords(text).length === 0) return `${VERSION}:`;
  const mins = minhash(text);
  let hex = '';
  for (const m of mins) hex += (m & 0xffff).toString(16).padStart(4, '0');
  return `${VERSION}:${hex}`;
}

function parse(fp: string): Uint16Array | null {
  if (!fp.startsWith(`${VERSION}:`)) return null;
  const hex = fp.slice(VERSION.length + 1);
  if (hex.length !== MINHASH_SIZE * 4 || !/^[0-9a-f]+$/.test(hex)) return null;
  const out = new Uint16Array(MINHASH_SIZE);
  for (let i = 0; i < MINHASH_SIZE; i++) out[i] = Number.parseInt(hex.slice(i * 4, i * 4 + 4), 16);
  return out;
}

/**
 * Estimated Jaccard similarity of the two texts' 5-shingle sets, 0..1: the share of equal
 * minima, corrected for chance 16-bit collisions. 0 when either fingerprint is empty, malformed
 * or of another version.
 */
export function similarity(a: string, b: string): number {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return 0;
  let equal = 0;
  for (let i = 0; i < MINHASH_SIZE; i++) if (x[i] === y[i]) equal++;
  const chance = 1 / 65536;
  const j = (equal / MINHASH_SIZE - chance) / (1 - chance);
  return Math.max(0, Math.min(1, Math.round(j * 1000) / 1000));
}

/**
 * The most similar of `candidates` (e.g. recent posts of the corpus and of the author), or null
 * when none is given. The caller decides with NEAR_DUPLICATE_THRESHOLD.
 */
export function mostSimilar(
  fp: string,
  candidates: Iterable<{ id: string; fingerprint: string }>,
): { id: string; similarity: number } | null {
  let best: { id: string; similarity: number } | null = null;
  for (const c of candidates) {
    const s = similarity(fp, c.fingerprint);
    if (!best || s > best.similarity) best = { id: c.id, similarity: s };
  }
  return best;
}
