/**
 * The responsiveness measurement (informational, not in the frozen list), one configuration per fresh
 * process: a real `serve()` on loopback over the database, and a latency probe, on a worker thread of
 * its own (so a blocked serving thread cannot delay its sending), that sends `GET /app/api/info` every
 * PROBE_MS without waiting for earlier answers and times each from its send to the end of its answer.
 * Meanwhile the serving process runs the full-day, all-columns getTicks (first date, all instruments,
 * Trade) `runs` times, one after another with a pause between:
 * - mode 'before': on the serving thread itself, `new AppService(Engine.open([db]), 'browser').run(...)`
 *   on the event loop, as the server did before the executor;
 * - mode 'after': `POST /app/api/run` to the same server, which hands it to the executor (1 worker).
 * One warm-up run first (untimed, not probed: both sides' column caches warm), then the probe's own
 * warm-up and an idle stretch (probe only, reported for reference), then the probed runs. The
 * latencies reported count the probes sent while a query ran (each also listed, for the bench to pool
 * the probes of several processes).
 * Argument: JSON { db, date, mode, minRuns, minQueryMs }. Prints one JSON line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RunResponse } from '../engine/contract.js';
import { Engine } from '../engine/engine.js';
import { loadSettings } from '../engine/executor/settings.js';
import { serve } from '../engine/server/serve.js';
import { AppService } from '../engine/service/app-service.js';
import { QueryService } from '../engine/service/query-service.js';
import { kdbDate, nextDate } from './case-query.js';

const PROBE_MS = 10;
/** The probe's own warm-up (connections opened, code compiled), not counted; then the idle stretch. */
const PROBE_WARMUP_MS = 300;
const IDLE_MS = 1000;
const PAUSE_MS = 150;
const MAX_RUNS = 60;

const input = JSON.parse(process.argv[2]!) as { db: string; date: string; mode: 'before' | 'after'; minRuns: number; minQueryMs: number };
const op = '.fsi.getTicks';
const args = { table: 'Trade', startTS: kdbDate(input.date), endTS: kdbDate(nextDate(input.date)) };

// The probe, on its own thread: open loop (one request every PROBE_MS whatever is outstanding).
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, token, intervalMs } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
const now = () => performance.timeOrigin + performance.now();
const samples = [];
let outstanding = 0;
let stopping = false;
const finish = () => {
  if (!stopping || outstanding > 0) return;
  agent.destroy();
  parentPort.postMessage({ kind: 'samples', samples });
};
const probe = () => {
  const sent = now();
  outstanding++;
  const done = (status) => {
    samples.push([sent, now() - sent, status]);
    outstanding--;
    finish();
  };
  const req = http.get({ host: '127.0.0.1', port, path: '/app/api/info', agent, headers: { 'x-tickscope-token': token } }, (res) => {
    res.resume();
    res.on('end', () => done(res.statusCode));
  });
  req.on('error', () => done(0));
};
const timer = setInterval(probe, intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  stopping = true;
  finish();
});
parentPort.postMessage({ kind: 'started' });
`;

async function main(): Promise<void> {
  // serve() needs a folder with an index.html
  const rendererDir = mkdtempSync(join(tmpdir(), 'tickscope-bench-renderer-'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><html><head><title>bench</title></head><body></body></html>');
  const service = await QueryService.start([input.db], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 }, 'browser');
  const server = await serve(service, { port: 0, host: '127.0.0.1', rendererDir });
  const port = Number(new URL(server.url).port);
  const local = input.mode === 'before' ? new AppService(Engine.open([input.db]), 'browser') : null;

  let nextQuery = 1;
  async function runQuery(): Promise<{ rows: number; ms: number }> {
    const t0 = performance.now();
    let r: RunResponse;
    if (local) r = local.run(op, args);
    else {
      const res = await fetch(new URL('app/api/run', server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tickscope-token': server.token },
        body: JSON.stringify({ operation: op, args, queryId: `bench-${nextQuery++}` }),
      });
      r = (await res.json()) as RunResponse;
    }
    const ms = performance.now() - t0;
    if (!r.ok) throw new Error(`responsiveness: getTicks failed: ac ${r.header.ac}: ${r.header.ai}`);
    return { rows: r.rows, ms };
  }

  const now = (): number => performance.timeOrigin + performance.now();
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

  try {
    // warm-up: the column cache (of this thread or of the worker) and the info route
    const warm = await runQuery();
    for (let i = 0; i < 5; i++) await (await fetch(new URL('app/api/info', server.url), { headers: { 'x-tickscope-token': server.token } })).arrayBuffer();

    const probe = new Worker(PROBE, { eval: true, workerData: { port, token: server.token, intervalMs: PROBE_MS } });
    const samplesP = new Promise<Array<[number, number, number]>>((resolve, reject) => {
      probe.on('message', (m: { kind: string; samples?: Array<[number, number, number]> }) => {
        if (m.kind === 'samples') resolve(m.samples!);
      });
      probe.on('error', reject);
    });
    await new Promise<void>((r) => probe.once('message', () => r()));
    await sleep(PROBE_WARMUP_MS);
    const idleFrom = now();
    await sleep(IDLE_MS);
    const idleTo = now();

    const windows: Array<[number, number]> = [];
    const queries: number[] = [];
    let rows = warm.rows;
    let total = 0;
    while (windows.length < MAX_RUNS && (windows.length < input.minRuns || total < input.minQueryMs)) {
      const from = now();
      const r = await runQuery();
      const to = now();
      windows.push([from, to]);
      queries.push(r.ms);
      rows = r.rows;
      total += r.ms;
      await sleep(PAUSE_MS);
    }
    probe.postMessage('stop');
    const samples = await samplesP;
    await probe.terminate();

    const bad = samples.filter((s) => s[2] !== 200);
    if (bad.length > 0) throw new Error(`responsiveness: ${bad.length} of ${samples.length} probes failed (status ${bad[0]![2] || 'no answer'})`);
    const during = samples.filter(([sent]) => windows.some(([a, b]) => sent >= a && sent <= b)).map((s) => s[1]);
    const idle = samples.filter(([sent]) => sent >= idleFrom && sent <= idleTo).map((s) => s[1]);
    process.stdout.write(
      `${JSON.stringify({ mode: input.mode, rows, warmupMs: warm.ms, queryMs: queries, probeMs: PROBE_MS, samples: during.length, p50: quantile(during, 0.5), p99: quantile(during, 0.99), max: Math.max(...during), idleSamples: idle.length, idleP50: quantile(idle, 0.5), idleP99: quantile(idle, 0.99), latencies: during.map(round), idleLatencies: idle.map(round) })}\n`,
    );
  } finally {
    await server.close();
    await service.close();
    rmSync(rendererDir, { recursive: true, force: true });
  }
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/** The q-quantile, nearest rank. */
function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

main().then(
  // no lingering keep-alive sockets: the answer is out (stdout to a pipe is synchronous)
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
