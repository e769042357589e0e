import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * How the service reaches the model server's own lifecycle: start it, ask whether it is ready,
 * stop it. The decisions (when, who, how often) are made by ServerLifecycle; this only acts.
 */
export interface ModelServerControl {
  /**
   * Issues a start. Rejects when the start could not be issued (the HTTP call failed, the shell
   * could not be spawned). A command start answers at once with the process group it leads.
   */
  start(): Promise<StartedServer>;
  /** Whether the server answers its readiness probe now. Never throws. */
  probe(): Promise<boolean>;
  /** Whether stop() can do anything for a server started as `started` (see ServerRef). */
  canStop(started: ServerRef): boolean;
  /** Stops the server (the stop command or URL, else the started process group). Rejects on failure. */
  stop(started: ServerRef): Promise<void>;
  /** Ends what a failed or hung start left behind (the process group only; never the stop command). */
  abort(started: ServerRef): Promise<void>;
}

/** What a start left that a later stop needs: the process group, and the host it runs on. */
export interface ServerRef {
  pid: number | null;
  host: string | null;
}

export interface StartedServer {
  /** Process group id of a command start (the shell leads its own group); absent for a URL start. */
  pid?: number;
  host?: string;
  /** Set once the attempt has failed on its own (the command exited non-zero or could not run). */
  failure(): string | undefined;
}

export interface ProcessModelServerOptions {
  /** Run with /bin/sh, detached in its own process group. Exit 0 (a launcher) or staying up both count as issued. */
  startCommand?: string;
  /** POSTed to start (a scaler's endpoint); any 2xx counts as issued. */
  startUrl?: string;
  stopCommand?: string;
  stopUrl?: string;
  /** GET; any 2xx means ready. */
  healthUrl: string;
  /** Sent as a bearer token to the probe (an OpenAI-compatible /models often needs it). */
  apiKey?: string;
  probeTimeoutMs?: number;
  /** Timeout of the start/stop HTTP calls and of the stop command. */
  actionTimeoutMs?: number;
  /** How long a signalled process group has to exit after SIGTERM before SIGKILL. */
  stopGraceMs?: number;
  cwd?: string;
}

const THIS_HOST = hostname();

/** The real control: shell commands, HTTP calls and process-group signals. */
export class ProcessModelServer implements ModelServerControl {
  readonly #o: Required<
    Pick<ProcessModelServerOptions, 'probeTimeoutMs' | 'actionTimeoutMs' | 'stopGraceMs'>
  > &
    ProcessModelServerOptions;
  /** Children this process spawned, so their exit is observed (and reaped) here. */
  readonly #children = new Map<number, ChildProcess>();

  constructor(opts: ProcessModelServerOptions) {
    this.#o = { probeTimeoutMs: 5000, actionTimeoutMs: 60_000, stopGraceMs: 5000, ...opts };
  }

  async start(): Promise<StartedServer> {
    if (this.#o.startCommand) return this.#spawnStart(this.#o.startCommand);
    if (this.#o.startUrl) {
      await this.#post(this.#o.startUrl, 'start URL');
      return { failure: () => undefined };
    }
    // Nothing to start (a server that is always on, or one that starts on its first request):
    // the probe alone decides.
    return { failure: () => undefined };
  }

  #spawnStart(command: string): Promise<StartedServer> {
    return new Promise((resolve, reject) => {
      let failure: string | undefined;
      const child = spawn(command, {
        shell: true,
        detached: true,
        stdio: 'ignore',
        ...(this.#o.cwd ? { cwd: this.#o.cwd } : {}),
      });
      child.on('error', (err) => {
        failure = `start command could not run: ${err.message}`;
        if (child.pid === undefined) reject(new Error(failure));
      });
      child.on('exit', (code, signal) => {
        if (child.pid !== undefined) this.#children.delete(child.pid);
        if (code !== 0 && failure === undefined)
          failure =
            code !== null
              ? `start command exited with code ${code}`
              : `start command was ended by ${signal ?? 'a signal'}`;
      });
      // The server outlives this process if need be: it is stopped by its process group id.
      child.unref();
      const pid = child.pid;
      if (pid === undefined) return; // 'error' follows and rejects
      this.#children.set(pid, child);
      resolve({ pid, host: THIS_HOST, failure: () => failure });
    });
  }

  async probe(): Promise<boolean> {
    try {
      const res = await fetch(this.#o.healthUrl, {
        headers: {
          accept: 'application/json',
          ...(this.#o.apiKey ? { authorization: `Bearer ${this.#o.apiKey}` } : {}),
        },
        signal: AbortSignal.timeout(this.#o.probeTimeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.ok;
    } catch {
      return false;
    }
  }

  canStop(started: ServerRef): boolean {
    return Boolean(this.#o.stopCommand || this.#o.stopUrl || this.#ownsGroup(started));
  }

  async stop(started: ServerRef): Promise<void> {
    if (this.#o.stopCommand) return this.#runStop(this.#o.stopCommand, started);
    if (this.#o.stopUrl) return this.#post(this.#o.stopUrl, 'stop URL');
    if (this.#ownsGroup(started)) return this.#endGroup(started.pid!);
    throw new Error('nothing can stop the model server: set MODERATOR_STOP_COMMAND or MODERATOR_STOP_URL');
  }

  async abort(started: ServerRef): Promise<void> {
    if (this.#ownsGroup(started)) await this.#endGroup(started.pid!);
  }

  /** A process group started by command on this host (by this process or an earlier one). */
  #ownsGroup(started: ServerRef): boolean {
    return started.pid !== null && started.pid > 1 && started.host === THIS_HOST;
  }

  /** SIGTERM to the group, SIGKILL after the grace period; resolves once no member is left. */
  async #endGroup(pgid: number): Promise<void> {
    if (!signalGroup(pgid, 'SIGTERM')) return;
    if (await this.#groupGone(pgid, this.#o.stopGraceMs)) return;
    signalGroup(pgid, 'SIGKILL');
    if (!(await this.#groupGone(pgid, 5000)))
      throw new Error(`process group ${pgid} is still there after SIGKILL`);
  }

  async #groupGone(pgid: number, withinMs: number): Promise<boolean> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const leader = this.#children.get(pgid);
      // The group leader we spawned is reaped by node; its 'exit' removes it from #children.
      if (!leader && groupEmpty(pgid)) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  #runStop(command: string, started: ServerRef): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(command, {
        shell: true,
        stdio: 'ignore',
        env: { ...process.env, ...(started.pid ? { MODEL_SERVER_PGID: String(started.pid) } : {}) },
        timeout: this.#o.actionTimeoutMs,
        ...(this.#o.cwd ? { cwd: this.#o.cwd } : {}),
      });
      child.on('error', (err) => reject(new Error(`stop command could not run: ${err.message}`)));
      child.on('exit', (code, signal) => {
        if (code === 0) resolve();
        else
          reject(
            new Error(
              code !== null ? `stop command exited with code ${code}` : `stop command ended by ${signal}`,
            ),
          );
      });
    });
  }

  async #post(url: string, what: string): Promise<void> {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.#o.actionTimeoutMs),
      });
    } catch (err) {
      throw new Error(`${what} could not be reached: ${err instanceof Error ? err.message : String(err)}`);
    }
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok) throw new Error(`${what} answered HTTP ${res.status}`);
  }
}

/** False when the group no longer exists. */
function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** No live member: the group is gone, or only zombies are left (they run nothing and hold no port). */
function groupEmpty(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  // kill() still counts zombies that no one has reaped yet; on Linux, look at each member's state.
  return liveMembers(pgid) === 0;
}

/** Members of the process group that are not zombies (Linux /proc); without /proc, assume some. */
export function liveMembers(pgid: number): number {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 1;
  }
  let n = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After the command name: state, ppid, pgrp, ...
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}
