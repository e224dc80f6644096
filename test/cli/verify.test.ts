/** `tickscope verify` and damaged files through `tickscope call`: a real process over real folders. */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/db.js';

const CLI = join(process.cwd(), 'bin', 'tickscope.cjs');
const FULL_DAY = JSON.stringify({ table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.07' });

function tickscope(args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { maxBuffer: 1 << 28, encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

let db = '';
let trade = '';

beforeAll(() => {
  db = join(tempDir(), 'demo');
  expect(tickscope(['demo', '--db', db, '--days', '1', '--instruments', '6', '--trades-per-day', '20000']).code).toBe(0);
  trade = join(db, 'data', 'Trade', readdirSync(join(db, 'data', 'Trade'))[0]!);
}, 120_000);

describe('tickscope verify', () => {
  it('exits 0 on a sound database, then 1 listing each damaged file with what is wrong; call answers ac 31 naming the file', () => {
    const clean = tickscope(['verify', '--db', db]);
    expect(clean.code).toBe(0);
    expect(clean.out).toMatch(/: ok \(9 folder\(s\), \d+ file\(s\) checked\)\n$/);

    const arrow = tickscope(['call', '--db', db, '--format', 'arrow', 'getTicks', FULL_DAY]);
    expect(arrow.code).toBe(0);

    // a flipped byte in a column the streamed Arrow answer reads a record batch at a time
    const price = join(trade, 'price.f64');
    const bytes = readFileSync(price);
    bytes[40_000] = bytes[40_000]! ^ 1;
    writeFileSync(price, bytes);
    const streamed = tickscope(['call', '--db', db, '--format', 'arrow', 'getTicks', FULL_DAY]);
    expect(streamed.code).toBe(1);
    expect(streamed.err).toContain(`${price}: checksum mismatch`);
    const json = tickscope(['call', '--db', db, 'getTicks', FULL_DAY]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ header: { rc: 5, ac: 31 } });

    truncateSync(join(trade, '_order.i32'), 100);
    truncateSync(join(trade, 'instrumentID.dict.utf8'), 10);
    truncateSync(join(trade, 'executionID.dict.offsets.i32'), 1000);
    const r = tickscope(['verify', '--db', db]);
    expect(r.code).toBe(1);
    const lines = r.out.trim().split('\n');
    expect(lines.slice(0, -1).sort()).toEqual(
      [
        `${join(trade, '_order.i32')}: 100 bytes, written with ${20_000 * 4}`,
        expect.stringMatching(new RegExp(`^${join(trade, 'executionID.dict.offsets.i32')}: 1000 bytes, written with \\d+$`)),
        expect.stringMatching(new RegExp(`^${join(trade, 'instrumentID.dict.utf8')}: 10 bytes, written with \\d+$`)),
        expect.stringMatching(new RegExp(`^${price}: checksum mismatch in bytes 0\\.\\.65536 \\(chunk 1 of \\d+\\)$`)),
      ].sort(),
    );
    expect(lines.at(-1)).toMatch(/: 4 damaged file\(s\)/);
    // every other table still answers
    const quotes = tickscope(['call', '--db', db, 'getTicks', JSON.stringify({ table: 'Quote', startTS: '2024.03.06', endTS: '2024.03.07' })]);
    expect(quotes.code).toBe(0);
  }, 120_000);
});
