import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { tableToArrow, writeArrowStream } from '../../../engine/output/arrow.js';
import { dictOf } from '../../../engine/core/dict.js';
import { remoteResult } from '../../../engine/session/remote-result.js';
import { tempDir } from '../../helpers/db.js';
import type { Column } from '../../../engine/core/column.js';
import { Table } from '../../../engine/core/table.js';
import { writeFloat, writeLongWords } from '../../../engine/output/numbers.js';
import { textChunks } from '../../../engine/output/text.js';
import { legacyCsv, legacyPayloadJson } from '../../helpers/legacy-output.js';
import { floatOf, generated, rng } from '../../helpers/generated-table.js';

function render(format: 'json' | 'csv', t: Table, zone: string, chunkBytes: number): Buffer {
  return Buffer.concat([...textChunks(format, t, zone, { chunkBytes })]);
}

describe('byte renderers', () => {
  for (const zone of ['UTC', 'America/New_York', 'Europe/London', 'Asia/Kolkata']) {
    it(`write JSON and CSV byte for byte as the string renderers, in ${zone}`, () => {
      // 3000 rows: each small dictionary's cells rendered once per entry; 40 rows: per cell
      for (const t of [generated(3000, zone.length), generated(40, zone.length + 1)]) {
        // a small chunk size exercises chunk boundaries inside rows and cells
        for (const chunk of [1 << 20, 97]) {
          expect(render('json', t, zone, chunk).equals(Buffer.from(legacyPayloadJson(t, zone)))).toBe(true);
          expect(render('csv', t, zone, chunk).equals(Buffer.from(legacyCsv(t, zone)))).toBe(true);
        }
      }
      const t = generated(3000, zone.length);
      expect(JSON.parse(render('json', t, zone, 1 << 16).toString())).toHaveLength(3000);
    });
  }

  it('write the same bytes where code cannot be generated (each row then written by one loop over the columns)', () => {
    // a policy against generated code (as a page's CSP would be): Function throws
    const real = globalThis.Function;
    globalThis.Function = function refused() {
      throw new EvalError('code generation from strings disallowed for this context');
    } as unknown as FunctionConstructor;
    try {
      for (const t of [generated(3000, 3), generated(40, 4)]) {
        for (const chunk of [1 << 20, 97]) {
          expect(render('json', t, 'America/New_York', chunk).equals(Buffer.from(legacyPayloadJson(t, 'America/New_York')))).toBe(true);
          expect(render('csv', t, 'America/New_York', chunk).equals(Buffer.from(legacyCsv(t, 'America/New_York')))).toBe(true);
        }
      }
    } finally {
      globalThis.Function = real;
    }
  });

  it('read views through their row index', () => {
    const base = generated(500, 7);
    const idx = Int32Array.from({ length: 800 }, (_, i) => (i * 7919) % 500);
    const view = base.take(idx);
    // as bytes: a lone surrogate is U+FFFD in any UTF-8 output (JSON escapes it)
    expect(render('json', view, 'UTC', 1 << 16).equals(Buffer.from(legacyPayloadJson(view, 'UTC')))).toBe(true);
    expect(render('csv', view, 'UTC', 1 << 16).equals(Buffer.from(legacyCsv(view, 'UTC')))).toBe(true);
  });

  it('write empty tables and tables without columns', () => {
    const empty = generated(0, 1);
    expect(render('json', empty, 'UTC', 64).toString()).toBe('[]');
    expect(render('csv', empty, 'UTC', 64).toString()).toBe(legacyCsv(empty, 'UTC'));
  });

  it('write every float as String(x) does', () => {
    const r = rng(42);
    const b = new Uint8Array(64);
    const dec = new TextDecoder();
    for (let i = 0; i < 300_000; i++) {
      const x = floatOf(r);
      if (!Number.isFinite(x)) continue;
      const p = writeFloat(b, 0, x);
      const got = dec.decode(b.subarray(0, p));
      if (got !== String(x)) expect(got, `float bits of ${x}`).toBe(String(x));
    }
  });

  it('write infinities inside float lists as "inf" and "-inf", so the JSON parses', () => {
    const t = new Table(['l'], [{ type: 'float[]', offsets: Int32Array.of(0, 3, 3, 5), values: Float64Array.of(1.5, Infinity, NaN, -Infinity, 2) }]);
    expect(JSON.parse(render('json', t, 'UTC', 1 << 16).toString())).toEqual([{ l: [1.5, 'inf', null] }, { l: [] }, { l: ['-inf', 2] }]);
    expect(render('csv', t, 'UTC', 1 << 16).toString()).toBe('l\n"[1.5,""inf"",null]"\n[]\n"[""-inf"",2]"\n');
  });

  it('write every long exactly, at each digit count and its edges, written at any offset', () => {
    const r = rng(7);
    const dec = new TextDecoder();
    // 2^31: where the writer leaves int32 arithmetic for two int32 halves; 2^53: for BigInt
    const values: bigint[] = [0n, 2n ** 31n - 1n, 2n ** 31n, 2n ** 31n + 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n) + 1n];
    for (let k = 1n, p = 0; p < 19; k *= 10n, p++) {
      values.push(k - 1n, k, k + 1n, k + BigInt(Math.floor(r() * Number(k > 2n ** 50n ? 2n ** 50n : k))), 10n * k - 1n);
    }
    for (let i = 0; i < 100_000; i++) values.push(BigInt(Math.floor(r() * 2 ** 53)) >> BigInt(Math.floor(r() * 50)));
    const b = new Uint8Array(80);
    for (const v of values.filter((x) => x < 2n ** 63n)) {
      for (const x of [v, -v]) {
        const w = new Int32Array(BigInt64Array.of(x).buffer);
        const at = Number(x & 7n);
        const end = writeLongWords(b, at, w[1]!, w[0]!);
        const got = dec.decode(b.subarray(at, end));
        if (got !== String(x)) expect(got, `long ${x}`).toBe(String(x));
      }
    }
  });
});

describe('Arrow output', () => {
  it('marks exactly the null rows of every column type valid or not, and leaves out the bitmap of a column without nulls', () => {
    const t = generated(3000, 11);
    const a = tableFromIPC(tableToArrow(t, { exact: true, zone: 'UTC' }));
    expect(a.numRows).toBe(3000);
    const nullRow = (c: Column, i: number): boolean => {
      switch (c.type) {
        case 'float':
          return c.data[i] !== c.data[i];
        case 'long':
        case 'timestamp':
        case 'timespan':
          return c.data[i] === -9223372036854775808n;
        case 'int':
        case 'date':
          return c.data[i] === -2147483648;
        case 'symbol':
          return c.dict.get(c.codes[i]!) === '';
        case 'string':
          return c.values[i] === '';
        default:
          return false;
      }
    };
    let checked = 0;
    for (const name of t.names) {
      const c = t.col(name);
      if (c.type === 'boolean' || c.type === 'float[]' || c.type === 'long[]') continue;
      const v = a.getChild(name)!;
      const expected = Array.from({ length: t.length }, (_, i) => nullRow(c, i));
      expect(expected.some(Boolean), `${name} has nulls in the generated table`).toBe(true);
      expect(Array.from({ length: t.length }, (_, i) => !v.isValid(i)), name).toEqual(expected);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(8);
    // a column without nulls carries no bitmap, and every row reads as valid
    const full = new Table(['x', 'n'], [{ type: 'float', data: Float64Array.of(1, 2, 3) }, { type: 'long', data: BigInt64Array.of(1n, 2n, 3n) }]);
    const b = tableFromIPC(tableToArrow(full, { exact: true }));
    for (const name of ['x', 'n']) {
      const v = b.getChild(name)!;
      expect(v.nullCount).toBe(0);
      expect([0, 1, 2].map((i) => v.isValid(i))).toEqual([true, true, true]);
    }
  });
});

describe('Arrow output streamed a record batch at a time', () => {
  /** Every value of every column of an Arrow table, row by row (nulls as null). */
  const values = (bytes: Uint8Array): { rows: number; batches: number; columns: Record<string, unknown[]> } => {
    const a = tableFromIPC(bytes);
    const columns: Record<string, unknown[]> = {};
    for (const f of a.schema.fields) {
      const v = a.getChild(f.name)!;
      columns[f.name] = Array.from({ length: a.numRows }, (_, i) => {
        const x: unknown = v.get(i);
        return x && typeof x === 'object' && 'toArray' in x ? Array.from((x as { toArray(): ArrayLike<unknown> }).toArray()) : x;
      });
    }
    return { rows: a.numRows, batches: a.batches.length, columns };
  };
  const stream = (t: Table, opts: Parameters<typeof writeArrowStream>[1], batchRows: number): Uint8Array => {
    const chunks: Uint8Array[] = [];
    writeArrowStream(t, opts, (c) => chunks.push(c.slice()), batchRows);
    return Buffer.concat(chunks);
  };

  it('holds the values tableToArrow gives, for every column type, a view, and a dictionary larger than the rows', () => {
    const base = generated(2500, 12);
    const view = base.take(Int32Array.from({ length: 1800 }, (_, i) => (i * 7919) % 2500));
    // 40 rows of a 5,000-entry dictionary: only the entries used travel
    const big = new Table(['id', 'x'], [
      { type: 'symbol', codes: Int32Array.from({ length: 40 }, (_, i) => (i * 97) % 5000), dict: dictOf(Array.from({ length: 5000 }, (_, k) => (k % 13 === 0 ? '' : `E${k}`))) },
      { type: 'float', data: Float64Array.from({ length: 40 }, (_, i) => i / 3) },
    ]);
    for (const [t, batchRows] of [
      [base, 1000],
      [view, 512],
      [big, 7],
    ] as const) {
      for (const opts of [{ exact: true, zone: 'America/New_York', metadata: new Map([['header', '{"rc":0}']]) }, {}]) {
        const whole = values(tableToArrow(t, opts));
        const streamed = values(stream(t, opts, batchRows));
        expect(streamed.rows).toBe(t.length);
        expect(streamed.batches).toBe(Math.ceil(t.length / batchRows));
        expect(streamed.columns).toEqual(whole.columns);
        expect(tableFromIPC(stream(t, opts, batchRows)).schema.metadata).toEqual(tableFromIPC(tableToArrow(t, opts)).schema.metadata);
      }
    }
  });

  it('reads back batch by batch as a remote gateway answer (the app holds it as a result)', () => {
    const all = generated(2600, 14);
    const t = all.select(all.defs.filter((d) => d.type !== 'float[]' && d.type !== 'boolean').map((d) => d.name));
    const bytes = stream(t, { exact: true, zone: 'UTC' }, 1000);
    const { result } = remoteResult(bytes, { api: 'getTicks', outputTZ: 'UTC', tableName: 'Trade', timeColumn: 'time', idColumn: 'sym', header: null });
    expect(result.table.length).toBe(2600);
    expect(Buffer.from(render('csv', result.table, 'UTC', 1 << 16)).equals(render('csv', t, 'UTC', 1 << 16))).toBe(true);
  });

  it('writes each symbol dictionary once, and an empty table as its schema', () => {
    const all = generated(3000, 13);
    const t = all.select(all.defs.filter((d) => d.type !== 'string').map((d) => d.name)); // strings hold the entries too
    const chunks: Uint8Array[] = [];
    writeArrowStream(t, { exact: true }, (c) => chunks.push(c.slice()), 500);
    const bytes = Buffer.concat(chunks);
    // one DictionaryBatch per symbol column: each entry's text appears once in the stream
    const entry = Buffer.from('Zürich');
    let seen = 0;
    for (let at = bytes.indexOf(entry); at >= 0; at = bytes.indexOf(entry, at + 1)) seen++;
    const symbolColumns = t.defs.filter((d) => d.type === 'symbol').length;
    expect(seen).toBe(symbolColumns);
    const empty = tableFromIPC(stream(generated(0, 1), {}, 100));
    expect(empty.numRows).toBe(0);
    expect(empty.schema.fields.map((f) => f.name)).toEqual(generated(0, 1).names);
  });
});

describe('output of real query results (a demo database)', () => {
  let engine: Engine;
  let day: string;
  beforeAll(() => {
    const dir = join(tempDir(), 'demo');
    day = generateDemo(dir, { seed: 5, days: 1, instruments: 4, tradesPerDay: 4000, startDate: '2024-03-07' }).dates[0]!.replaceAll('-', '.');
    engine = Engine.open([dir]);
  });

  it('JSON and CSV of a full day, in time order, match the string renderers byte for byte', () => {
    for (const zone of ['UTC', 'Europe/London']) {
      const r = engine.call('getTicks', { table: 'Trade', startTS: day, endTS: `${day}D23:59:59`, outputTZ: zone });
      expect(r.table.length).toBeGreaterThan(3000);
      expect(render('json', r.table, zone, 1 << 16).equals(Buffer.from(legacyPayloadJson(r.table, zone)))).toBe(true);
      expect(render('csv', r.table, zone, 1 << 16).equals(Buffer.from(legacyCsv(r.table, zone)))).toBe(true);
    }
  });

  it('Arrow symbol dictionaries hold every value and null, whole or only the entries a narrow result uses', () => {
    const whole = engine.call('getTicks', { table: 'Trade', startTS: day, endTS: `${day}D23:59:59` });
    const ids = engine.call('getTicks', { table: 'Trade', startTS: day, endTS: `${day}D23:59:59`, idList: [textOf(whole.table, 'instrumentID', 0)], filter: [['<', 'sequenceNumber', 50]] });
    for (const r of [whole, ids]) {
      const a = tableFromIPC(tableToArrow(r.table, { exact: true }));
      expect(a.numRows).toBe(r.table.length);
      for (const name of r.table.names) {
        if (r.table.col(name).type !== 'symbol') continue;
        const v = a.getChild(name)!;
        for (let i = 0; i < r.table.length; i++) {
          const text = textOf(r.table, name, i);
          const got = v.get(i) as string | null;
          if (got !== (text === '' ? null : text)) expect(got, `${name} row ${i}`).toBe(text === '' ? null : text);
        }
      }
    }
    // the narrow result's execution IDs: only the entries it uses, not the day's dictionary
    const narrow = tableFromIPC(tableToArrow(ids.table, { exact: true })).getChild('executionID')!;
    const dictionary = narrow.data[0]!.dictionary!;
    expect(dictionary.length).toBeLessThanOrEqual(ids.table.length);
  });
});

function textOf(t: Table, name: string, row: number): string {
  const c = t.col(name);
  if (c.type !== 'symbol') throw new Error(`${name} is not a symbol column`);
  return c.dict.get(c.codes[row]!);
}
