/**
 * Fuzzing the gateway (fixed seed): a short run of the same fuzzer as `npm run fuzz` (bench/fuzz-*.ts)
 * against `tickscope gateway` in a child process (dist/, built by `npm test`), with the short
 * handshake and write-stall timeouts. A few hundred seeded REST and q IPC cases, mostly well-formed
 * with one thing wrong, then every named fixed case. Nothing may crash or wedge the gateway or answer
 * 500; every error names its argument or the part at fault; a correct getTicks sent alongside is
 * answered within a second; a correct read and a correct write are answered afterwards.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { NAMED_CASES } from '../../../bench/fuzz-named.js';
import { type FuzzReport, runFuzz } from '../../../bench/fuzz-run.js';

const SEED = 20261123;
/** Every named fixed case of the fuzzer: each is its own test below, so a failure names the case. */
const NAMED_FIXED_CASES: readonly string[] = NAMED_CASES.map((c) => c.name);

let report: FuzzReport;
beforeAll(async () => {
  report = await runFuzz({ seed: SEED, rest: 300, q: 150, short: true, hangMs: 3000, probeEvery: 25 });
}, 120_000);

const show = (xs: ReadonlyArray<{ id: string; what: string; detail: string }>): string => xs.slice(0, 8).map((f) => `${f.id} ${f.what}: ${f.detail}`).join('\n');

describe(`fuzzing the gateway (seed ${SEED})`, () => {
  it('sends the planned cases, most of them reaching the executor', () => {
    expect(report.restSent).toBeGreaterThanOrEqual(report.crash ? 1 : 300);
    expect(report.qSent).toBeGreaterThan(report.crash ? 0 : 100);
    expect(report.restReached / Math.max(1, report.restSent), report.reachedMethod).toBeGreaterThanOrEqual(0.3);
  });

  it('never crashes or wedges the gateway', () => {
    expect(report.crash).toBeNull();
  });

  it('answers no 500 and no other unplanned 5xx', () => {
    expect(report.unplanned5xx, show(report.unplanned5xx)).toEqual([]);
  });

  it('answers every request (no hang)', () => {
    expect(report.hangs, show(report.hangs)).toEqual([]);
  });

  it('names the argument or the part at fault in every error', () => {
    expect(report.unnamed, show(report.unnamed)).toEqual([]);
  });

  it('answers a correct getTicks sent alongside within a second', () => {
    expect(report.probes.failed).toBe(0);
    expect(report.probes.slowestMs, `after ${report.probes.slowestAt}`).toBeLessThan(1000);
  });

  it('still answers a correct read and a correct write afterwards', () => {
    expect(report.after.getTicks, report.after.detail).toBe(200);
    expect(report.after.generate, report.after.detail).toBe(200);
  });

  describe('named fixed cases', () => {
    it.each(NAMED_FIXED_CASES)('%s', (name) => {
      const n = report.named.find((x) => x.name === name);
      expect(n, `${name} did not run`).toBeDefined();
      expect(n!.ok, `${n!.detail}\nexpected: ${n!.expect}`).toBe(true);
    });
  });
});
