/**
 * Timing whole commands (the cold, output and import-many cases): what a user runs, `tickscope call ...`
 * (or `tickscope import ...`) from a shell, start to exit, timed by wall clock from a small process.
 *
 * The bench's own process is large (DuckDB loaded, a GB of heap and mappings): a process it spawns
 * takes far longer than one a shell spawns (`node -e 0` took 219-241 ms spawned from the bench, 50-95
 * ms from a shell; most likely the fork of a large process), and nothing says that extra is the same
 * for a bare node and for a larger command, so subtracting one from the other measured neither. So the bench spawns one small timer process per case (spawn-timer.ts, built as
 * dist/bench/spawn-timer.cjs: Node's built-ins only) and the timer spawns every command and a bare node
 * (`node -e 0`), alternating them (node, command, node, command, ...), each with standard output to
 * /dev/null, and reports their wall-clock times. A command's figure is the median of its runs less the
 * median of the bare node's: what the command costs beyond node's own start-up.
 *
 * Before the timed runs, each command runs once with its standard output piped to the timer (the probe:
 * bytes and lines counted, the head kept for the row count, standard error kept), which also leaves the
 * page cache warm and the `tickscope` command's code cache written (its first run after a build writes it).
 *
 * Types and arithmetic only: the timer and DuckDB's child (duck-copy.ts) import this file too.
 */

/** One command the timer runs: argv[0] is the executable. */
export interface TimedCommand {
  readonly name: string;
  readonly argv: readonly string[];
  /** The probe's argv, when it differs (DuckDB's child counts its bytes there, writes to /dev/null when timed). */
  readonly probe?: readonly string[];
  /**
   * Run untimed before every run of the command (its probe, warm-ups and timed runs), standard output
   * and error ignored, exit 0 required: a command that writes gets a fresh copy of what it writes to.
   */
  readonly before?: readonly string[];
}

export interface TimerInput {
  readonly commands: readonly TimedCommand[];
  /** The bare process timed before each command: `node -e 0`. */
  readonly baseline: readonly string[];
  /** Untimed runs of each command (standard output to /dev/null) after its probe. */
  readonly warmups: number;
  /** Timed rounds: in each, every command once, each after a run of the baseline. */
  readonly runs: number;
}

/** The probe run of a command: its standard output through a pipe. */
export interface Probe {
  readonly bytes: number;
  /** Newline bytes in standard output. */
  readonly newlines: number;
  /** Whether standard output ended with a newline (false when empty). */
  readonly endsWithNewline: boolean;
  /** The first 64 KiB of standard output, as text. */
  readonly head: string;
  readonly stderr: string;
}

export interface TimerOutput {
  /** Wall-clock ms of every baseline run, in the order they ran. */
  readonly baseline: number[];
  /** Wall-clock ms of each command's timed runs, by name. */
  readonly runs: Record<string, number[]>;
  readonly probes: Record<string, Probe>;
}

/** The argument of duck-copy.ts, DuckDB's side of the command cases. */
export interface DuckCopyArg {
  readonly file: string;
  readonly threads: number;
  readonly sql: string;
  readonly format: 'csv' | 'json';
  /** /dev/null when timed; the probe counts the bytes (duck-copy.ts). */
  readonly to: '/dev/null' | 'count';
}

/** The argument of duck-import.ts, DuckDB's side of the import-many case. */
export interface DuckImportArg {
  /** A .duckdb file that does not exist yet. */
  readonly file: string;
  readonly threads: number;
  /** The statement that reads the files into a table. */
  readonly sql: string;
}

/** DuckDB's COPY options of each format: JSON as one array of row objects, as the payload `tickscope call` writes; CSV with a header line. */
export const COPY_OPTIONS = { csv: 'FORMAT CSV, HEADER true', json: 'FORMAT JSON, ARRAY true' } as const;

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** ms beyond node's start-up: a command's median less the baseline's. */
export function beyondNode(t: TimerOutput, name: string): number {
  return median(t.runs[name]!) - median(t.baseline);
}

/** Rows of a CSV probe: its lines (the last may lack its newline) less the header. */
export function csvRows(p: Probe): number {
  return p.newlines + (p.bytes > 0 && !p.endsWithNewline ? 1 : 0) - 1;
}
