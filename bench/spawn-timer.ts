/**
 * The timer of the command cases (command-timing.ts says why it exists): a small process that spawns
 * each command of its input repeatedly, alternating with a bare node, and reports wall-clock times.
 * It loads Node's built-ins only, so a process it spawns costs what one a shell spawns costs.
 *
 * A command's `before` step (a fresh copy of what it writes) runs untimed before each of its runs.
 *
 * Input: a TimerInput as JSON on standard input. Output: one line of JSON, a TimerOutput. A command
 * that exits other than 0 ends the timer with status 1 and the command's standard error.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import type { Probe, TimedCommand, TimerInput, TimerOutput } from './command-timing.js';

const HEAD = 64 * 1024;

function fail(argv: readonly string[], status: number | null, signal: string | null, stderr: string): never {
  process.stderr.write(`spawn-timer: ${argv.join(' ')}: ${signal ? `killed by ${signal}` : `exit ${status}`}\n${stderr}\n`);
  process.exit(1);
}

/** One run with standard output piped here: bytes and newlines counted, the head kept. */
function probe(argv: readonly string[]): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const p = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    let newlines = 0;
    let last = -1;
    const head: Buffer[] = [];
    let headBytes = 0;
    const err: Buffer[] = [];
    p.stdout.on('data', (b: Buffer) => {
      bytes += b.length;
      for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) newlines++;
      last = b[b.length - 1]!;
      if (headBytes < HEAD) {
        head.push(b.subarray(0, HEAD - headBytes));
        headBytes += Math.min(b.length, HEAD - headBytes);
      }
    });
    p.stderr.on('data', (b: Buffer) => err.push(b));
    p.on('error', reject);
    p.on('close', (status, signal) => {
      const stderr = Buffer.concat(err).toString();
      if (status !== 0) fail(argv, status, signal, stderr);
      resolve({ bytes, newlines, endsWithNewline: last === 10, head: Buffer.concat(head).toString(), stderr });
    });
  });
}

/** The command's `before` step, untimed (see TimedCommand). */
function prepare(c: TimedCommand): void {
  if (!c.before) return;
  const r = spawnSync(c.before[0]!, c.before.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.error) throw r.error;
  if (r.status !== 0) fail(c.before, r.status, r.signal, r.stderr.toString());
}

/** Wall-clock ms of one run, standard output to `out` (a file descriptor). */
function timed(argv: readonly string[], out: number): number {
  const t0 = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: ['ignore', out, 'pipe'] });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  if (r.status !== 0) fail(argv, r.status, r.signal, r.stderr.toString());
  return ms;
}

async function main(): Promise<void> {
  const input = JSON.parse(readFileSync(0, 'utf8')) as TimerInput;
  const probes: Record<string, Probe> = {};
  for (const c of input.commands) {
    prepare(c);
    probes[c.name] = await probe(c.probe ?? c.argv);
  }
  const devNull = openSync('/dev/null', 'w');
  const baseline: number[] = [];
  const runs: Record<string, number[]> = Object.fromEntries(input.commands.map((c) => [c.name, []]));
  try {
    timed(input.baseline, devNull);
    for (let i = 0; i < input.warmups; i++) {
      for (const c of input.commands) {
        prepare(c);
        timed(c.argv, devNull);
      }
    }
    for (let i = 0; i < input.runs; i++) {
      for (const c of input.commands) {
        prepare(c);
        baseline.push(timed(input.baseline, devNull));
        runs[c.name]!.push(timed(c.argv, devNull));
      }
    }
  } finally {
    closeSync(devNull);
  }
  const out: TimerOutput = { baseline, runs, probes };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

void main();
