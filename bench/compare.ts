/**
 * A/B comparison of two builds, as issue 28 asks of a change that could slow things down: the bench
 * before and after, at least 7 interleaved runs a side; each case's median ratio within the larger of
 * 10% and its A/A spread (the same build against itself).
 *
 *   node dist/bench/compare.js --a DIR_A --b DIR_B [--runs 7] [--cases cold,output] [--bench own|a|b]
 *                              [--data DIR] [--out DIR] [-- options for each bench run]
 *
 * DIR_A and DIR_B are built checkouts (a git worktree with dist/, e.g. the base commit in ../base: `git
 * worktree add ../base <rev> && cd ../base && npm ci && npm run build`). Runs alternate A, B, A, B, ...,
 * each a whole `node DIR/dist/bench/bench.js --cases LIST --data DATA [options]` in a fresh process
 * (nothing built: build both first), its printout kept in --out, its results read from
 * DATA/last-run.json. The figures compared, from each run's results (each quoted from one run, as the
 * bench quotes them):
 *   - a warm case: its ratio (Tickscope / DuckDB) at each thread count;
 *   - cold: the ms of `tickscope call` beyond a bare node, and its ratio to DuckDB at each thread count;
 *   - output: each format's ms, and the ratio to DuckDB of JSON and CSV at each thread count;
 *   - import: its ratio; import-many: its ms beyond a bare node, and its ratio to DuckDB at each thread
 *     count; memory: its RSS multiple.
 * Per figure: A's and B's medians over the runs, B/A, and A's A/A spread: A's runs halved (1st, 3rd,
 * ... against 2nd, 4th, ...), |the ratio of the halves' medians - 1|. The verdict: B/A within 1 ± the
 * larger of 10% and that spread is "same", above it "WORSE", below it "better". Exit status 1 when any
 * figure is WORSE.
 *
 * --bench own (default): each side runs its own bench (npm run bench before and after), so the warm
 * cases measure each build's engine, and any case measures as that side's bench measures it. When the
 * two benches differ (bench/ changed between the commits), a case whose method changed is not
 * comparable; --bench a or b runs that side's bench for both, each timing its own side's `tickscope`
 * command (--tickscope), which is what the cold and output cases measure: only those cases then (a warm
 * case would measure the bench's own engine on both sides).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './command-timing.js';

const HELP = `node dist/bench/compare.js --a DIR_A --b DIR_B [options] [-- options for each bench run]
  --a DIR, --b DIR   built checkouts (each with dist/bench/bench.js and bin/tickscope.cjs)
  --runs N           bench runs a side, interleaved A, B, A, B, ... (default 7; 7 or more for a result)
  --cases LIST       the bench's case ids (default cold,output)
  --bench own|a|b    own: each side runs its own bench (default); a or b: that side's bench for both,
                     each timing its own side's tickscope command (cold and output cases only)
  --data DIR         the bench data both sides use (default .bench-data)
  --out DIR          each run's printout and results, and compare.json (default <data>/compare; an earlier comparison's go)
  e.g. node dist/bench/compare.js --a ../base --b . --runs 7 --cases cold,output -- --runs 5`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    runs: { type: 'string', default: '7' },
    cases: { type: 'string', default: 'cold,output' },
    bench: { type: 'string', default: 'own' },
    data: { type: 'string', default: '.bench-data' },
    out: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const usage = (msg: string): never => {
  console.error(`compare: ${msg}\n\n${HELP}`);
  process.exit(2);
};

type Side = 'A' | 'B';
if (!values.a || !values.b) usage('--a and --b are required');
const dirs: Record<Side, string> = { A: resolve(values.a!), B: resolve(values.b!) };
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 2) usage(`--runs must be 2 or more (the A/A spread halves A's runs), got ${values.runs}`);
const cases = values.cases.split(',').map((s) => s.trim()).filter(Boolean);
const benchMode = values.bench;
if (benchMode !== 'own' && benchMode !== 'a' && benchMode !== 'b') usage(`--bench must be own, a or b, got ${benchMode}`);
if (benchMode !== 'own') {
  const other = cases.filter((c) => c !== 'cold' && c !== 'output');
  if (other.length > 0) usage(`--bench ${benchMode} compares the cold and output cases only (they time each side's own command); not ${other.join(', ')}`);
}
for (const side of ['A', 'B'] as const) {
  for (const f of ['dist/bench/bench.js', 'bin/tickscope.cjs']) {
    if (!existsSync(join(dirs[side], f))) usage(`${side}: ${join(dirs[side], f)} is missing (build the checkout: npm ci && npm run build)`);
  }
}
const data = resolve(values.data);
const out = resolve(values.out ?? join(data, 'compare'));
mkdirSync(out, { recursive: true });
// an earlier comparison's files go (only those: --out may name a folder holding others)
for (const f of readdirSync(out)) if (/^(run-\d+-[AB]\.(log|json)|compare\.json)$/.test(f)) rmSync(join(out, f));

/** The commit of a checkout, "+changes" when its work tree differs from it. */
function commitOf(dir: string): string {
  const git = (...args: string[]): string => spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).stdout?.trim() ?? '';
  const head = git('rev-parse', '--short', 'HEAD');
  if (!head) return 'no git commit';
  return git('status', '--porcelain', '--untracked-files=no') ? `${head}+changes` : head;
}

/** A digest of a checkout's bench sources: two benches measure alike only when these are equal. */
function benchDigest(dir: string): string {
  const h = createHash('sha256');
  const folder = join(dir, 'bench');
  for (const f of readdirSync(folder).filter((f) => f.endsWith('.ts')).sort()) h.update(f).update(readFileSync(join(folder, f)));
  return h.digest('hex');
}

const benchOf = (side: Side): string => join(benchMode === 'own' ? dirs[side] : dirs[benchMode === 'a' ? 'A' : 'B'], 'dist', 'bench', 'bench.js');
const sameBench = benchDigest(dirs.A) === benchDigest(dirs.B);

console.log(`A: ${dirs.A} (${commitOf(dirs.A)})`);
console.log(`B: ${dirs.B} (${commitOf(dirs.B)})`);
console.log(
  benchMode === 'own'
    ? `bench: each side's own (${sameBench ? 'their bench/ sources are the same' : "their bench/ sources DIFFER: a case whose method changed between them is not comparable; --bench a|b runs one side's bench for both"})`
    : `bench: ${benchMode.toUpperCase()}'s (${benchOf('A')}) for both, each side timing its own bin/tickscope.cjs`,
);
console.log(`${runs} runs a side, interleaved A, B, A, B, ...; cases ${cases.join(',')}; bench options: ${positionals.join(' ') || '(none)'}; data ${data}; printouts in ${out}`);
if (runs < 7) console.log('NOTE: fewer than 7 runs a side: a check of the machinery, not a result');

// ---------------------------------------------------------------------------------------------------
// The figures of one bench run, from its last-run.json (the shapes of older benches included: a figure
// a report lacks is left out).

interface Report {
  readonly when: string;
  readonly failed?: readonly string[];
  readonly warm?: ReadonlyArray<{ readonly id: string; readonly timings: Readonly<Record<string, { readonly ratio: number }>> }>;
  readonly cold?: { readonly oursMs: number; readonly duck?: Readonly<Record<string, { readonly ratio: number }>> } | null;
  readonly output?: { readonly formats: Readonly<Record<string, { readonly ms: number; readonly duck?: Readonly<Record<string, { readonly ratio: number }>> | null }>> } | null;
  readonly import?: { readonly ratio: number } | null;
  readonly importMany?: { readonly oursMs: number; readonly duck: Readonly<Record<string, { readonly ratio: number }>> } | null;
  readonly memory?: { readonly multiple: number } | null;
}

function figures(r: Report): Map<string, number> {
  const m = new Map<string, number>();
  for (const w of r.warm ?? []) for (const [t, x] of Object.entries(w.timings)) m.set(`${w.id} ratio@${t}t`, x.ratio);
  if (r.cold) {
    m.set('cold ms', r.cold.oursMs);
    for (const [t, x] of Object.entries(r.cold.duck ?? {})) m.set(`cold ratio@${t}t`, x.ratio);
  }
  for (const [f, x] of Object.entries(r.output?.formats ?? {})) {
    m.set(`output ${f} ms`, x.ms);
    for (const [t, d] of Object.entries(x.duck ?? {})) m.set(`output ${f} ratio@${t}t`, d.ratio);
  }
  if (r.import) m.set('import ratio', r.import.ratio);
  if (r.importMany) {
    m.set('import-many ms', r.importMany.oursMs);
    for (const [t, x] of Object.entries(r.importMany.duck)) m.set(`import-many ratio@${t}t`, x.ratio);
  }
  if (r.memory) m.set('memory multiple', r.memory.multiple);
  return m;
}

// ---------------------------------------------------------------------------------------------------
// The runs.

const results: Record<Side, Array<Map<string, number>>> = { A: [], B: [] };
const last = join(data, 'last-run.json');
for (let i = 0; i < runs; i++) {
  for (const side of ['A', 'B'] as const) {
    const name = `run-${String(i + 1).padStart(2, '0')}-${side}`;
    const args = [benchOf(side), '--cases', cases.join(','), '--data', data, ...positionals];
    if (benchMode !== 'own') args.push('--tickscope', join(dirs[side], 'bin', 'tickscope.cjs'));
    const log = openSync(join(out, `${name}.log`), 'w');
    const started = Date.now();
    const r = spawnSync(process.execPath, args, { cwd: dirs[side], stdio: ['ignore', log, log] });
    closeSync(log);
    const seconds = (Date.now() - started) / 1000;
    if (r.status !== 0) {
      const text = readFileSync(join(out, `${name}.log`), 'utf8');
      console.error(`\n${name}: the bench exited ${r.status ?? r.signal}; the end of its printout (${join(out, `${name}.log`)}):\n${text.slice(-3000)}`);
      process.exit(1);
    }
    if (!existsSync(last) || statSync(last).mtimeMs < started) {
      console.error(`${name}: the bench wrote no ${last}`);
      process.exit(1);
    }
    const text = readFileSync(last, 'utf8');
    writeFileSync(join(out, `${name}.json`), text);
    const report = JSON.parse(text) as Report;
    if (report.failed && report.failed.length > 0) {
      console.error(`${name}: cases failed: ${report.failed.join(', ')} (${join(out, `${name}.log`)})`);
      process.exit(1);
    }
    const f = figures(report);
    results[side].push(f);
    const shown = [...f].slice(0, 4).map(([k, v]) => `${k} ${v.toFixed(2)}`);
    console.log(`  ${name}: ${seconds.toFixed(0)} s   ${shown.join('   ')}${f.size > 4 ? '   ...' : ''}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// The comparison.

interface Compared {
  readonly figure: string;
  readonly a: number[];
  readonly b: number[];
  readonly medianA: number | null;
  readonly medianB: number | null;
  readonly ratio: number | null;
  readonly spread: number | null;
  readonly limit: number | null;
  readonly verdict: 'same' | 'WORSE' | 'better' | 'not in A' | 'not in B';
}

const FLOOR = 0.1;
const names = [...new Set([...results.A, ...results.B].flatMap((m) => [...m.keys()]))];
const compared: Compared[] = names.map((figure) => {
  const a = results.A.map((m) => m.get(figure)).filter((x): x is number => x !== undefined);
  const b = results.B.map((m) => m.get(figure)).filter((x): x is number => x !== undefined);
  if (a.length < runs || b.length < runs) {
    const verdict = a.length < runs ? 'not in A' : 'not in B';
    return { figure, a, b, medianA: a.length ? median(a) : null, medianB: b.length ? median(b) : null, ratio: null, spread: null, limit: null, verdict };
  }
  const medianA = median(a);
  const medianB = median(b);
  const ratio = medianB / medianA;
  const spread = Math.abs(median(a.filter((_, i) => i % 2 === 0)) / median(a.filter((_, i) => i % 2 === 1)) - 1);
  const limit = Math.max(FLOOR, spread);
  const verdict = ratio > 1 + limit ? 'WORSE' : ratio < 1 - limit ? 'better' : 'same';
  return { figure, a, b, medianA, medianB, ratio, spread, limit, verdict };
});

const W = Math.max(24, ...names.map((n) => n.length));
const col = (s: string, w: number): string => s.padStart(w);
const num = (x: number | null): string => (x === null ? '-' : x.toFixed(2));
const pct = (x: number | null): string => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
console.log('');
console.log(`medians of ${runs} runs a side; B/A below 1: B faster; A/A spread: A's odd runs against its even runs; limit: the larger of ${FLOOR * 100}% and the spread`);
const header = `${'figure'.padEnd(W)} ${col('A', 10)} ${col('B', 10)} ${col('B/A', 6)} ${col('A/A spread', 10)} ${col('limit', 6)}  verdict`;
console.log(header);
console.log('-'.repeat(header.length));
for (const c of compared) {
  console.log(`${c.figure.padEnd(W)} ${col(num(c.medianA), 10)} ${col(num(c.medianB), 10)} ${col(num(c.ratio), 6)} ${col(pct(c.spread), 10)} ${col(pct(c.limit), 6)}  ${c.verdict}`);
}
const worse = compared.filter((c) => c.verdict === 'WORSE');
const missing = compared.filter((c) => c.verdict === 'not in A' || c.verdict === 'not in B');
console.log('');
console.log(
  worse.length > 0
    ? `verdict: B is WORSE than A on ${worse.map((c) => c.figure).join(', ')}`
    : `verdict: B within the limits on all ${compared.length - missing.length} figures compared${missing.length ? ` (${missing.length} in one side only: not compared)` : ''}`,
);
if (benchMode === 'own' && !sameBench) console.log('  (the two benches differ: a figure whose method changed between them is not comparable)');
if (runs < 7) console.log('  (fewer than 7 runs a side: a check of the machinery, not a result)');
writeFileSync(
  join(out, 'compare.json'),
  `${JSON.stringify({ when: new Date().toISOString(), a: { dir: dirs.A, commit: commitOf(dirs.A) }, b: { dir: dirs.B, commit: commitOf(dirs.B) }, bench: benchMode, sameBench, runs, cases, benchOptions: positionals, floor: FLOOR, compared }, null, 2)}\n`,
);
console.log(`results: ${join(out, 'compare.json')}`);
if (worse.length > 0) process.exitCode = 1;
