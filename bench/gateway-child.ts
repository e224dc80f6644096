/**
 * `tickscope gateway` in a child process, as the fuzzer, the load run and the fuzz test drive it: the
 * real CLI with the real settings path (TICKSCOPE_* variables), so a crash is the child's exit and not
 * the harness's, and a hang is visible from outside. Parses the start-up banner (REST URL, token URL,
 * q port, the one-off client), follows the access log on stdout, reads the process's memory from
 * /proc and, when the gateway offers its test hooks, asks it for a forced GC and its counters.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface GatewayChildOptions {
  readonly db: string;
  /** TICKSCOPE_* settings and any other variables, on top of this process's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** A clients file (tickscope clients add); without it the gateway makes and prints a one-off client. */
  readonly clientsFile?: string;
  readonly tokenTtlSeconds?: number;
  /** Start node with --expose-gc (what the test hook's forced GC needs). */
  readonly exposeGc?: boolean;
  /** Each access-log line (and any other stdout line) as it comes. */
  readonly onLine?: (line: string) => void;
  /** ms to wait for the banner. */
  readonly startTimeoutMs?: number;
}

export interface ProcMemory {
  /** Resident set now, bytes. */
  readonly rss: number;
  /** The resident set's high-water mark, bytes. */
  readonly hwm: number;
}

/** What the proposed `POST /debug/gc` hook answers (docs/gateway.md, "Fuzzing and load"). */
export interface GcReading {
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly rss: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** Entries of each per-client map of the gateway (in-flight counts, rate windows, q sockets...). */
  readonly perClient?: Readonly<Record<string, number>>;
}

export interface GatewayChild {
  readonly pid: number;
  /** http://127.0.0.1:PORT */
  readonly base: string;
  readonly tokenUrl: string;
  readonly ipcPort: number;
  /** The one-off client, when no clients file was given. */
  readonly client: { readonly id: string; readonly secret: string } | null;
  /** Settles when the child exits (a crash while in use). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
  /** The child's memory from /proc/<pid>/status (NaN off Linux or once it has exited). */
  memory(): ProcMemory;
  /** The last lines the child wrote to stderr (stack traces of internal errors with TICKSCOPE_DEBUG). */
  stderrTail(): string;
  /** Forced GC and heap reading through the test hook; null when the gateway has none (probed once). */
  gc(): Promise<GcReading | null>;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
}

/** dist/bin/cli.cjs, from the bundled bench (dist/bench) or the sources (bench/, run by the tests). */
export function cliPath(): string {
  const built = new URL(import.meta.url.includes('/dist/bench/') ? '../bin/cli.cjs' : '../dist/bin/cli.cjs', import.meta.url);
  const path = fileURLToPath(built);
  if (!existsSync(path)) throw new Error(`${path} is missing: run npm run build first`);
  return path;
}

/** Reads VmRSS and VmHWM of a process. */
export function procMemory(pid: number): ProcMemory {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1] ?? Number.NaN) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: Number.NaN, hwm: Number.NaN };
  }
}

/** Starts `tickscope gateway --port 0 --ipc-port 0` on a database and resolves once its banner is read. */
export async function startGatewayChild(opts: GatewayChildOptions): Promise<GatewayChild> {
  const args = [
    ...(opts.exposeGc ? ['--expose-gc'] : []),
    cliPath(),
    'gateway',
    '--db',
    opts.db,
    '--port',
    '0',
    '--ipc-port',
    '0',
    ...(opts.clientsFile ? ['--clients', opts.clientsFile] : []),
    ...(opts.tokenTtlSeconds ? ['--token-ttl', String(opts.tokenTtlSeconds)] : []),
  ];
  // TICKSCOPE_DEBUG: an internal error's stack goes to stderr, which the report quotes
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, TICKSCOPE_DEBUG: '1', ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-8000);
  });
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
    }),
  );
  let banner = '';
  let partial = '';
  let started = false;
  const info = await new Promise<{ base: string; tokenUrl: string; ipcPort: number; client: { id: string; secret: string } | null }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway printed no banner in time: ${banner}${stderr}`)), opts.startTimeoutMs ?? 30_000);
    void exited.then((e) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`the gateway exited (${e.code ?? e.signal}) before it started: ${banner}${stderr}`));
    });
    child.stdout!.on('data', (c: Buffer) => {
      const text = partial + c.toString();
      const lines = text.split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (started) {
          opts.onLine?.(line);
          continue;
        }
        banner += `${line}\n`;
        const base = /REST at (https?:\/\/[^/]+)\//.exec(banner)?.[1];
        const ipc = /kdb\+ IPC at \S+:(\d+)/.exec(banner)?.[1];
        const tokenUrl = /tokens: POST (\S+)/.exec(banner)?.[1];
        const cred = /client_id (\S+)\s+client_secret (\S+)/.exec(banner);
        // the one-off client's line is the banner's last; a clients file has none
        if (base && ipc && tokenUrl && (cred || opts.clientsFile)) {
          started = true;
          clearTimeout(timer);
          resolve({ base, tokenUrl, ipcPort: Number(ipc), client: cred ? { id: cred[1]!, secret: cred[2]! } : null });
        }
      }
    });
  });
  let hook: 'unknown' | 'absent' | 'present' = 'unknown';
  return {
    pid: child.pid!,
    ...info,
    exited,
    alive: () => exitInfo === null,
    memory: () => (exitInfo ? { rss: Number.NaN, hwm: Number.NaN } : procMemory(child.pid!)),
    stderrTail: () => stderr,
    async gc() {
      if (hook === 'absent' || exitInfo) return null;
      try {
        const r = await fetch(`${info.base}/debug/gc`, { method: 'POST', signal: AbortSignal.timeout(10_000) });
        if (r.status !== 200) {
          hook = 'absent';
          await r.arrayBuffer();
          return null;
        }
        hook = 'present';
        return (await r.json()) as GcReading;
      } catch {
        return null;
      }
    },
    async stop() {
      if (exitInfo) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}
