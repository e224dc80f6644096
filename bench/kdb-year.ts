/**
 * The kdb-year case (kdb-cases.ts says what it measures): a cold narrow query on a year of date
 * partitions against the same query on its last day alone, and what opening the year touches.
 */
import { kdbDate } from './case-query.js';
import { median, type Probe, type TimedCommand, type TimerInput, type TimerOutput } from './command-timing.js';
import { yearData, type YearData } from './kdb-data.js';
import { KDB_TARGETS } from './kdb-cases.js';
import type { KdbOpenCount } from './kdb-open.js';

/** What the year case takes from the bench's run. */
export interface KdbYearContext {
  readonly root: string;
  readonly runs: number;
  readonly log: (msg: string) => void;
  /** The timer over commands (command-timing.ts). */
  readonly timeCommands: (input: TimerInput) => TimerOutput;
  /** `tickscope call --db DIR --format F OP ARGS`. */
  readonly callCommand: (name: string, db: string, format: string, op: string, args: unknown) => TimedCommand;
  readonly baseline: readonly string[];
  /** Rows of a `tickscope call` JSON probe. */
  readonly jsonRows: (p: Probe) => number;
  /** A child process of the bench (its last line JSON). */
  readonly child: <T>(script: string, arg: unknown) => T;
}

export interface KdbYearResult {
  readonly data: Omit<YearData, 'dates' | 'instruments'> & { readonly first: string; readonly last: string };
  readonly args: Record<string, unknown>;
  readonly rows: number;
  readonly bytes: number;
  readonly runs: number;
  readonly nodeStartMs: number;
  readonly nodeRuns: number[];
  /** ms beyond the bare node: the year HDB, its last day alone; year / one. */
  readonly yearMs: number;
  readonly oneMs: number;
  readonly ratio: number;
  readonly yearRuns: number[];
  readonly oneRuns: number[];
  readonly open: { readonly year: KdbOpenCount; readonly one: KdbOpenCount };
}

export function runKdbYear(k: KdbYearContext): KdbYearResult {
  const data = yearData(k.root, k.log);
  if (data.builtSeconds !== null) k.log(`    written in ${data.builtSeconds.toFixed(0)} s`);
  const last = data.dates[data.dates.length - 1]!;
  const args = { table: 'Trade', idList: [data.instruments[0]!], startTS: `${last}D15:00`, endTS: `${last}D16:00` };
  const op = '.fsi.getTicks';
  const t = k.timeCommands({ commands: [k.callCommand('year', data.year, 'json', op, args), k.callCommand('one', data.one, 'json', op, args)], baseline: k.baseline, warmups: 1, runs: k.runs });
  const rows = k.jsonRows(t.probes['year']!);
  const oneRows = k.jsonRows(t.probes['one']!);
  if (rows !== oneRows || rows === 0) throw new Error(`kdb-year: the year HDB answered ${rows} rows, its last day alone ${oneRows}`);
  const base = median(t.baseline);
  const yearMs = median(t.runs['year']!) - base;
  const oneMs = median(t.runs['one']!) - base;
  const open = { year: k.child<KdbOpenCount>('kdb-open.cjs', { dir: data.year }), one: k.child<KdbOpenCount>('kdb-open.cjs', { dir: data.one }) };
  const { dates, instruments, ...rest } = data;
  void instruments;
  return {
    data: { ...rest, first: dates[0]!, last },
    args,
    rows,
    bytes: t.probes['year']!.bytes,
    runs: k.runs,
    nodeStartMs: base,
    nodeRuns: t.baseline,
    yearMs,
    oneMs,
    ratio: yearMs / oneMs,
    yearRuns: t.runs['year']!,
    oneRuns: t.runs['one']!,
    open,
  };
}

export function printKdbYear(y: KdbYearResult): void {
  const ms = (x: number): string => x.toFixed(2);
  const s = y.data.scale;
  console.log('');
  console.log(
    `kdb-year: cold narrow query, \`tickscope call --db HDB\` of getTicks ${JSON.stringify(y.args)} (${y.rows} rows, JSON to /dev/null), median of ${y.runs}, ms beyond a bare node (${ms(y.nodeStartMs)} ms):`,
  );
  const rows = (s.days * s.tradesPerDay).toLocaleString('en-US');
  console.log(`  year: ${s.days} date partitions ${kdbDate(y.data.first)}-${kdbDate(y.data.last)}, ${s.instruments} instruments, ${s.tradesPerDay.toLocaleString('en-US')} trades a day (${rows} rows, ${(y.data.yearBytes / 1e9).toFixed(1)} GB, uncompressed)`);
  if (y.data.scaledDown) console.log(`  SCALED DOWN: ${y.data.scaledDown}`);
  console.log(`  year HDB          ${ms(y.yearMs).padStart(8)} ms   (runs ${y.yearRuns.map(ms).join(' ')})`);
  console.log(`  its last day alone ${ms(y.oneMs).padStart(7)} ms   (runs ${y.oneRuns.map(ms).join(' ')})`);
  console.log(`  ratio year / one  ${y.ratio.toFixed(2).padStart(8)}      target <= ${KDB_TARGETS.year}${y.ratio > KDB_TARGETS.year ? '  MISSED' : ''}`);
  const o = y.open.year;
  console.log(`  opening the year HDB in a fresh process (${o.partitions} partition folders), what each step touches on disk (fs calls counted):`);
  for (const p of o.phases) {
    console.log(
      `    ${p.name.padEnd(68)} ${ms(p.ms).padStart(8)} ms   folders listed ${String(p.listed).padStart(4)} (partitions ${p.partitionsListed}), paths stat'ed ${String(p.statted).padStart(4)} (partitions ${p.partitionsStatted}), files opened ${String(p.opened).padStart(4)} (partitions ${p.partitionsOpened})`,
    );
  }
  const one = y.open.one.phases;
  console.log(`    the one-partition HDB, for comparison: ${one.map((p) => `${p.name.split(' (')[0]} ${ms(p.ms)} ms, ${p.opened} files opened`).join('; ')}`);
  const listed = o.phases.slice(0, 2);
  const info = o.phases[2];
  const partsOpened = Math.max(...listed.map((p) => p.partitionsOpened));
  console.log(
    `  table list without reading every partition: mount + table list open files of ${partsOpened} of ${o.partitions} partitions${partsOpened < o.partitions ? '' : '  MISSED'}; the app's info() opens files in ${info?.partitionsOpened ?? '-'} of ${o.partitions}${info && info.partitionsOpened >= o.partitions ? '  MISSED (its row counts: storage/source.ts tableRows reads every partition)' : ''}`,
  );
}
