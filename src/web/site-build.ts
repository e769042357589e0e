import type { Logger } from '../core/context.js';
import type { SiteKind } from '../core/sites/sites.js';
import type { SiteContent } from './site-content.js';
import type { SiteFiles } from './site-files.js';

export interface BuildResult {
  written: string[];
  unchanged: string[];
  removed: string[];
}

/**
 * Builds the static site from SiteContent into SiteFiles. Incremental (`build`): exactly the paths a
 * change touched (src/core/sites/changes.ts); a path with no page any more (a deleted post, an
 * emptied topic) has its file removed. Full (`full`, the `site build` command): every page, and
 * every file that is no longer a page is removed.
 * Any failure (a full disk) throws: the job is retried and the files already in place stay whole.
 */
export class SiteBuilder {
  constructor(
    private readonly content: SiteContent,
    readonly files: SiteFiles,
    private readonly log: Logger,
  ) {}

  async build(site: SiteKind, paths: readonly string[]): Promise<BuildResult> {
    const result: BuildResult = { written: [], unchanged: [], removed: [] };
    for (const path of [...new Set(paths)]) {
      if (!this.files.fileFor(site, path)) continue;
      const page = await this.content.render(site, path);
      if (page) {
        const done = await this.files.write(site, path, page.body);
        (done === 'written' ? result.written : result.unchanged).push(path);
      } else if (await this.files.remove(site, path)) {
        result.removed.push(path);
      }
    }
    this.log.info(
      { site, written: result.written.length, removed: result.removed.length },
      `site ${site}: ${result.written.length} written, ${result.removed.length} removed`,
    );
    return result;
  }

  async full(site: SiteKind): Promise<BuildResult> {
    const wanted = await this.content.allPaths(site);
    const result = await this.build(site, wanted);
    const keep = new Set(wanted);
    const { paths, temps } = await this.files.list(site);
    for (const path of paths) {
      if (!keep.has(path) && (await this.files.remove(site, path))) result.removed.push(path);
    }
    for (const temp of temps) await this.files.removeFile(temp);
    return result;
  }
}
