/**
 * npm run fuzz: the gateway fuzzed over REST and q IPC, as a script (not a timed test). Starts
 * `tickscope gateway` in a child process on a fresh demo database, sends seeded mutations of REST
 * requests and q messages (bench/fuzz-rest.ts, bench/fuzz-q.ts) with a correct getTicks alongside
 * every N of them, then the named fixed cases (bench/fuzz-named.ts), then a correct read and write.
 * Reports requests sent, statuses, the share that reached the executor, crashes, hangs, unplanned
 * 5xx, errors naming nothing, the slowest correct answer and the gateway's memory. Exits 1 on any
 * crash, hang, unplanned 5xx, correct request slower than 1 s, or other failure of the oracle.
 *
 *   npm run fuzz -- [--seed N] [--rest N] [--q N] [--minutes M] [--short] [--named a,b] [--every N]
 *                   [--files N] [--files-only]
 *
 * Then the file inputs (bench/fuzz-files.ts): --files N mutations each of an Arrow IPC file (stream
 * and file format), a Parquet file, a kdb+ settings file and an import mapping, and N bodies of POST
 * /app/api/databases against an in-process `tickscope serve` (--files 0: none; --files-only: these
 * alone, without the gateway).
 *
 * A run waits out the gateway's real handshake (10 s) and write-stall (30 s) timeouts; --short sets
 * them to 2 s (TICKSCOPE_Q_HANDSHAKE_TIMEOUT_MS, TICKSCOPE_WRITE_STALL_MS), as the fuzz test does.
 */
import { parseArgs } from 'node:util';
import { type FileFuzzReport, runFileFuzz } from './fuzz-files.js';
import { failures, type Finding, type FuzzReport, runFuzz } from './fuzz-run.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    rest: { type: 'string', default: '3000' },
    q: { type: 'string', default: '1500' },
    minutes: { type: 'string' },
    short: { type: 'boolean', default: false },
    named: { type: 'string' },
    every: { type: 'string', default: '25' },
    'hang-ms': { type: 'string', default: '30000' },
    files: { type: 'string', default: '300' },
    'files-only': { type: 'boolean', default: false },
  },
});
const num = (name: string, v: string | undefined, min: number): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) {
    console.error(`--${name}: ${JSON.stringify(v)} is not valid; expected a number >= ${min}\nusage: npm run fuzz -- [--seed N] [--rest N] [--q N] [--minutes M] [--short] [--named a,b] [--every N] [--hang-ms MS] [--files N] [--files-only]`);
    process.exit(2);
  }
  return n;
};
const seed = num('seed', values.seed, 0);
const files = num('files', values.files, 0);
const failed: string[] = [];
if (!values['files-only']) {
  const report = await runFuzz({
    seed,
    rest: num('rest', values.rest, 0),
    q: num('q', values.q, 0),
    ...(values.minutes ? { minutes: num('minutes', values.minutes, 0) } : {}),
    short: values.short,
    hangMs: num('hang-ms', values['hang-ms'], 100),
    probeEvery: num('every', values.every, 1),
    ...(values.named ? { named: values.named.split(',') } : {}),
    progress: (line) => console.log(line),
  });
  print(report);
  failed.push(...failures(report));
}
if (files > 0) {
  const fileReport = await runFileFuzz({ seed, count: files, hangMs: Math.min(num('hang-ms', values['hang-ms'], 100), 10_000), progress: (line) => console.log(line) });
  printFiles(fileReport);
  failed.push(...fileReport.findings.map((f) => `${f.id} ${f.what}: ${f.detail}`));
}
console.log(failed.length ? `\nFAILED (seed ${seed}):\n  ${failed.join('\n  ')}` : `\npassed (seed ${seed})`);
process.exitCode = failed.length ? 1 : 0;

/** The file inputs' report on stdout. */
function printFiles(r: FileFuzzReport): void {
  console.log(`\nfile inputs: ${r.seconds.toFixed(1)} s`);
  for (const [input, m] of r.outcomes) console.log(`  ${input}: ${[...m].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} x${n}`).join(', ')}`);
  console.log(`  findings: ${r.findings.length}`);
  for (const f of r.findings.slice(0, 20)) console.log(`    ${f.id} ${f.what}: ${f.detail}`);
  if (r.findings.length > 20) console.log(`    ... ${r.findings.length - 20} more`);
}

/** The run's report on stdout. */
function print(r: FuzzReport): void {
  const mib = (b: number): string => (b / 1048576).toFixed(0);
  const hist = (m: ReadonlyMap<string, number>): string => [...m].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} x${n}`).join(', ');
  const list = (title: string, xs: readonly Finding[]): void => {
    if (!xs.length) return;
    console.log(`  ${title}: ${xs.length}`);
    for (const f of xs.slice(0, 12)) console.log(`    ${f.id} ${f.what}: ${f.detail}`);
    if (xs.length > 12) console.log(`    ... ${xs.length - 12} more`);
  };
  console.log(`\nfuzz: seed ${r.seed}, ${r.seconds.toFixed(1)} s`);
  console.log(`  REST requests ${r.restSent}: ${hist(r.statuses)}`);
  console.log(`  q messages ${r.qSent}: ${hist(r.qOutcomes)}`);
  console.log(`  reached the executor: REST ${r.restReached} (${r.restSent ? ((100 * r.restReached) / r.restSent).toFixed(0) : 0}%), q ${r.qReached}; counted by ${r.reachedMethod}`);
  console.log(`  crash: ${r.crash ?? 'none'}`);
  list('hangs', r.hangs);
  list('unplanned 5xx', r.unplanned5xx);
  list('errors naming neither argument nor part', r.unnamed);
  list('connections closed without an answer', r.dropped);
  list("refused by Node's HTTP parser (not judged)", r.parser);
  console.log(`  correct getTicks alongside: ${r.probes.count}, slowest ${r.probes.slowestMs.toFixed(0)} ms (after ${r.probes.slowestAt || '-'}), ${r.probes.failed} failed`);
  console.log(`  gateway RSS: ${mib(r.memory.startRss)} MiB at the start, max ${mib(r.memory.maxRss)}, ${mib(r.memory.endRss)} at the end, peak (VmHWM) ${mib(r.memory.hwm)} MiB`);
  console.log(r.heap ? `  gateway heap after a forced GC: ${mib(r.heap.heapUsed)} MiB used of ${mib(r.heap.heapTotal)}` : '  gateway heap: not measured (the gateway has no POST /debug/gc test hook yet; RSS from /proc only)');
  console.log('  named cases:');
  for (const n of r.named) console.log(`    ${n.ok ? 'ok  ' : 'FAIL'} ${n.name} (${(n.ms / 1000).toFixed(1)} s): ${n.detail}${n.ok ? '' : `\n           expected: ${n.expect}`}`);
  console.log(`  afterwards: getTicks ${r.after.getTicks}, generateOrderAnalytics ${r.after.generate}`);
}
