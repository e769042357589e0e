import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { SiteKind } from '../core/sites/sites.js';

/** The file operations a build uses; tests pass one that fails like a full disk. */
export type SiteIo = Pick<typeof fsp, 'writeFile' | 'rename' | 'unlink' | 'mkdir' | 'readFile' | 'readdir'>;

/** A built file as served: its bytes and a strong ETag of them. */
export interface BuiltFile {
  body: Buffer;
  etag: string;
}

/** Strong ETag of a body: the same for a built file and for the same page rendered live. */
export function etagOf(body: string | Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** URL path segments we build: no empty, hidden or dot-dot segment can name a file outside the site. */
const SAFE_PATH = /^\/([A-Za-z0-9_-][A-Za-z0-9_.-]*(\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*)?$/;
/** Built files kept in memory (the oldest is dropped first); a miss costs one read and one hash. */
const CACHE_ENTRIES = 5000;
const DATA_FILE = /\.(json|xml|txt)$/;

/**
 * The built site on disk: `<root>/<site kind>/...`, one file per page, laid out so a plain web
 * server finds them (`/` -> index.html, `/p/x` -> p/x.html, `/p/x.json` -> p/x.json).
 * Writes are atomic (a temporary file in the same folder, then rename), so a reader sees the old
 * bytes or the new ones, never half a file; a failed write (a full disk) leaves the old file and
 * throws, so the job that asked for it fails and is retried.
 */
export class SiteFiles {
  readonly #cache = new Map<
    string,
    { ino: number; size: number; mtimeMs: number; checked: number; file: BuiltFile | null }
  >();

  /**
   * @param revalidateMs how long a served file is trusted before it is stat'ed again. This process's
   *   own writes and removals take effect at once; another process's (a `work` process on shared
   *   storage) within this time.
   */
  constructor(
    readonly root: string,
    private readonly io: SiteIo = fsp,
    private readonly revalidateMs = 1000,
  ) {}

  /** The file of a URL path, or null for a path that is not a site file. */
  fileFor(site: SiteKind, path: string): string | null {
    if (!SAFE_PATH.test(path)) return null;
    const name = path === '/' ? 'index.html' : DATA_FILE.test(path) ? path.slice(1) : `${path.slice(1)}.html`;
    return join(this.root, site, ...name.split('/'));
  }

  /** The URL path a built file serves (inverse of fileFor). */
  pathFor(site: SiteKind, file: string): string {
    const rel = relative(join(this.root, site), file).split(sep).join('/');
    if (rel === 'index.html') return '/';
    return `/${rel.endsWith('.html') ? rel.slice(0, -'.html'.length) : rel}`;
  }

  /** Writes atomically; 'unchanged' (and no write) when the file already holds these bytes. */
  async write(site: SiteKind, path: string, body: string): Promise<'written' | 'unchanged'> {
    const file = this.fileFor(site, path);
    if (!file) throw new Error(`not a site path: ${path}`);
    const bytes = Buffer.from(body);
    const old = await this.io.readFile(file).catch(() => null);
    if (old?.equals(bytes)) return 'unchanged';
    await this.io.mkdir(dirname(file), { recursive: true });
    const temp = join(dirname(file), `.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await this.io.writeFile(temp, bytes, { flag: 'wx' });
      await this.io.rename(temp, file);
    } catch (err) {
      await this.io.unlink(temp).catch(() => {});
      throw err;
    } finally {
      this.#cache.delete(`${site}:${path}`);
    }
    return 'written';
  }

  /** Removes a page's file; false when there was none. */
  async remove(site: SiteKind, path: string): Promise<boolean> {
    const file = this.fileFor(site, path);
    if (!file) return false;
    this.#cache.delete(`${site}:${path}`);
    try {
      await this.io.unlink(file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  /** URL paths of every built file of a site, and leftover temporary files (from a crash mid-write). */
  async list(site: SiteKind): Promise<{ paths: string[]; temps: string[] }> {
    const base = join(this.root, site);
    const entries = await this.io.readdir(base, { recursive: true, withFileTypes: true }).catch(() => []);
    const paths: string[] = [];
    const temps: string[] = [];
    for (const e of entries) {
      if (!e.isFile()) continue;
      const file = join(e.parentPath, e.name);
      if (e.name.startsWith('.')) {
        if (e.name.endsWith('.tmp')) temps.push(file);
        continue;
      }
      paths.push(this.pathFor(site, file));
    }
    return { paths, temps };
  }

  async removeFile(file: string): Promise<void> {
    await this.io.unlink(file).catch(() => {});
  }

  /**
   * The built file of a path, or null when it is not built. A file is read and hashed once, then
   * served from memory; it is stat'ed again after `revalidateMs` (a rebuild renames a new inode
   * into place, so a changed file is always noticed).
   */
  read(site: SiteKind, path: string): BuiltFile | null {
    const now = performance.now();
    const hit = this.#cache.get(`${site}:${path}`);
    if (hit && now - hit.checked < this.revalidateMs) return hit.file;
    const file = this.fileFor(site, path);
    if (!file) return null;
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(file, { throwIfNoEntry: false });
    } catch {
      st = undefined; // ENOTDIR, EACCES…: not a built file; the page is rendered instead
    }
    if (!st?.isFile()) {
      this.#remember(site, path, { ino: 0, size: 0, mtimeMs: 0, checked: now, file: null });
      return null;
    }
    if (hit?.file && hit.ino === st.ino && hit.size === st.size && hit.mtimeMs === st.mtimeMs) {
      hit.checked = now;
      return hit.file;
    }
    let body: Buffer;
    try {
      body = readFileSync(file);
    } catch {
      return null;
    }
    const built = { body, etag: etagOf(body) };
    this.#remember(site, path, {
      ino: st.ino,
      size: st.size,
      mtimeMs: st.mtimeMs,
      checked: now,
      file: built,
    });
    return built;
  }

  #remember(
    site: SiteKind,
    path: string,
    entry: { ino: number; size: number; mtimeMs: number; checked: number; file: BuiltFile | null },
  ) {
    const key = `${site}:${path}`;
    if (!this.#cache.has(key) && this.#cache.size >= CACHE_ENTRIES) {
      this.#cache.delete(this.#cache.keys().next().value as string);
    }
    this.#cache.set(key, entry);
  }
}
