/**
 * npm run load: the gateway under load, as a script (not a timed test). Starts `tickscope gateway`
 * (the real CLI, default settings) in a child process on a demo database, then runs N concurrent REST
 * clients (default 50) issuing valid queries of every operation for S seconds (default 60), each
 * request awaited before the client's next. Reports throughput, p50/p99/max latency by operation,
 * every status, and the gateway process's RSS over the run (flat: the last sample within 10% of the
 * one after warm-up). Exits 1 on any error response or failed request.
 *
 *   npm run load -- [--clients 50] [--seconds 60] [--data .bench-data]
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateDemo } from '../engine/demo/generate.js';

const { values } = parseArgs({ options: { clients: { type: 'string', default: '50' }, seconds: { type: 'string', default: '60' }, data: { type: 'string', default: '.bench-data' } } });
const clients = Number(values.clients);
const seconds = Number(values.seconds);
if (!Number.isInteger(clients) || clients < 1 || !Number.isFinite(seconds) || seconds <= 0) {
  console.error('usage: npm run load -- [--clients N] [--seconds S] [--data DIR]');
  process.exit(2);
}
const dir = join(resolve(values.data), 'load-demo-5d-20i-200000t');
if (!existsSync(dir)) {
  console.log(`generating the demo database for the load run in ${dir} ...`);
  generateDemo(dir, { seed: 1, days: 5, instruments: 20, tradesPerDay: 200_000 });
}

const cli = fileURLToPath(new URL('../bin/cli.cjs', import.meta.url));
const child = spawn(process.execPath, [cli, 'gateway', '--db', dir, '--port', '0', '--ipc-port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
const started = await new Promise<{ base: string; tokenUrl: string; id: string; secret: string }>((resolveStart, reject) => {
  child.on('exit', (code) => reject(new Error(`the gateway exited (${code}): ${out}`)));
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    const base = /REST at (http:\/\/[^/]+)\//.exec(out)?.[1];
    const tokenUrl = /tokens: POST (\S+)/.exec(out)?.[1];
    const cred = /client_id (\S+)\s+client_secret (\S+)/.exec(out);
    if (base && tokenUrl && cred) resolveStart({ base, tokenUrl, id: cred[1]!, secret: cred[2]! });
  });
});
// the gateway's access log is not needed here: keep reading it so the pipe never fills
child.stdout.removeAllListeners('data');
child.stdout.resume();

const tokenRes = await fetch(started.tokenUrl, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: started.id, client_secret: started.secret }) });
const token = ((await tokenRes.json()) as { access_token: string }).access_token;

const day = '2024.03.06';
const QUERIES: ReadonlyArray<{ name: string; path: string; body: unknown }> = [
  { name: 'getTicks 1 instrument 1 hour', path: 'fsi/getTicks', body: { table: 'Trade', startTS: `${day}D15:00`, endTS: `${day}D16:00`, idList: ['AAPL'], columns: ['price', 'volume'] } },
  { name: 'getTicks quotes 10 min', path: 'fsi/getTicks', body: { table: 'Quote', startTS: `${day}D15:00`, endTS: `${day}D15:10`, idList: ['MSFT', 'VOD'] } },
  { name: 'getStats 5-min vwap 1 day', path: 'fsi/getStats', body: { table: 'Trade', startTS: day, endTS: '2024.03.07', granularity: 5, granularityUnit: 'minute', analytics: ['vwap'] } },
  { name: 'getStats per instrument all days', path: 'fsi/getStats', body: { table: 'Trade', startTS: '2024.03.01', endTS: '2024.03.31', analytics: ['vwap', 'tradeCount'] } },
  { name: 'getOrderAnalyticSummary', path: 'fsi/getOrderAnalyticSummary', body: { table: 'OrderAnalytics', startTS: '2024.03.01', endTS: '2024.03.31', groupBy: ['algoStrategy'] } },
  { name: 'getMeta', path: 'kxi/getMeta', body: {} },
];

const pidRss = (): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
};
const rss: Array<{ t: number; bytes: number }> = [];
const t0 = performance.now();
const sampler = setInterval(() => rss.push({ t: (performance.now() - t0) / 1000, bytes: pidRss() }), 1000);

const latencies = new Map<string, number[]>();
const statuses = new Map<number, number>();
let failures = 0;
const firstFailures: string[] = [];
const end = t0 + seconds * 1000;
let k = 0;
async function client(): Promise<void> {
  while (performance.now() < end) {
    const q = QUERIES[k++ % QUERIES.length]!;
    const s = performance.now();
    try {
      const r = await fetch(`${started.base}/servicegateway/${q.path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(q.body) });
      const text = await r.text();
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status !== 200 || !text.startsWith('{"header":{"rc":0')) {
        failures++;
        if (firstFailures.length < 5) firstFailures.push(`${q.name}: ${r.status} ${text.slice(0, 200)}`);
      }
    } catch (e) {
      failures++;
      if (firstFailures.length < 5) firstFailures.push(`${q.name}: ${(e as Error).message}`);
    }
    const list = latencies.get(q.name) ?? [];
    list.push(performance.now() - s);
    latencies.set(q.name, list);
  }
}
await Promise.all(Array.from({ length: clients }, () => client()));
clearInterval(sampler);
const elapsed = (performance.now() - t0) / 1000;
child.kill('SIGTERM');

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const all = [...latencies.values()].flat();
const mib = (b: number): string => (b / 1048576).toFixed(1);
const warm = rss.find((x) => x.t >= Math.min(10, seconds / 3)) ?? rss[0]!;
const last = rss[rss.length - 1]!;
const drift = (last.bytes - warm.bytes) / warm.bytes;
console.log(`\nload: ${clients} REST clients for ${elapsed.toFixed(1)} s against tickscope gateway (default settings) on ${dir}`);
console.log(`  ${all.length} requests, ${(all.length / elapsed).toFixed(1)}/s; latency p50 ${pct(all, 50).toFixed(1)} ms, p99 ${pct(all, 99).toFixed(1)} ms, max ${Math.max(...all).toFixed(1)} ms`);
for (const [name, xs] of latencies) console.log(`    ${name.padEnd(36)} ${String(xs.length).padStart(6)}  p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms  p99 ${pct(xs, 99).toFixed(1).padStart(7)} ms`);
console.log(`  statuses: ${[...statuses].map(([s, n]) => `${s} x${n}`).join(', ')}; errors ${failures}${failures ? `  FAILED\n    ${firstFailures.join('\n    ')}` : ''}`);
console.log(`  gateway RSS: ${mib(warm.bytes)} MiB at ${warm.t.toFixed(0)} s, ${mib(last.bytes)} MiB at the end (${(drift * 100).toFixed(1)}%), max ${mib(Math.max(...rss.map((x) => x.bytes)))} MiB   target flat within 10%${Math.abs(drift) > 0.1 ? '  MISSED' : ''}`);
writeFileSync(join(resolve(values.data), 'load-last.json'), JSON.stringify({ when: new Date().toISOString(), clients, seconds: elapsed, requests: all.length, failures, statuses: Object.fromEntries(statuses), p50: pct(all, 50), p99: pct(all, 99), rss }, null, 2));
process.exitCode = failures > 0 ? 1 : 0;
