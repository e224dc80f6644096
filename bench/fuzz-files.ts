/**
 * The file inputs fuzzed (issue 30), beside the gateway's requests: seeded mutations of an Arrow IPC
 * file (stream and file format) and a Parquet file through parseArrow and parseParquet, of a kdb+
 * settings file (--kdb-settings, mounted on the TorQ fixture as --db mounts it) and of an import
 * mapping (--map, readImportMap), and of the body of POST /app/api/databases against `tickscope
 * serve`. A file case must end in its table or a TickscopeError naming the file; a body in a 2xx or
 * 4xx answer with an error body; never another exception, a 5xx or a hang. The file cases run in a
 * worker the main thread watches, so a case that hangs is named and the worker ended, not waited out.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Float64, Int64, makeData, makeVector, Table as ArrowTable, tableToIPC, TimestampNanosecond, Utf8, vectorFromArray } from 'apache-arrow';
import { TickscopeError } from '../engine/core/errors.js';
import type { Table } from '../engine/core/table.js';
import { Engine } from '../engine/engine.js';
import { loadSettings } from '../engine/executor/settings.js';
import { resultToParquet } from '../engine/output/parquet.js';
import { serve } from '../engine/server/serve.js';
import { QueryService } from '../engine/service/query-service.js';
import { Database } from '../engine/storage/database.js';
import { readImportMap } from '../engine/storage/import-map.js';
import { parseArrow, parseCsv } from '../engine/storage/import.js';
import { openMount } from '../engine/storage/mount.js';
import { parseParquet } from '../engine/storage/parquet/read.js';
import type { TableSchema } from '../engine/storage/schema.js';
import { Rand } from './fuzz-world.js';
import { leanMap } from './lean-map.js';

export const FILE_INPUTS = ['arrow-stream', 'arrow-file', 'parquet', 'kdb-settings', 'import-map'] as const;
type FileInput = (typeof FILE_INPUTS)[number];

export interface FileFinding {
  readonly input: string;
  readonly id: string;
  readonly what: string;
  readonly detail: string;
}

export interface FileFuzzReport {
  /** Per input: cases run, and how they ended (ok, or the TickscopeError's kind, or the HTTP status). */
  readonly outcomes: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly findings: readonly FileFinding[];
  readonly seconds: number;
}

const T: TableSchema = {
  name: 'T',
  kind: 'partitioned',
  timeColumn: 'time',
  idColumn: 'sym',
  foreignKeys: {},
  columns: [
    { name: 'time', type: 'timestamp' },
    { name: 'sym', type: 'symbol' },
    { name: 'price', type: 'float' },
    { name: 'size', type: 'long' },
  ],
};

const TORQ = fileURLToPath(new URL('../../test/fixtures/kdb-torq-hdb/hdb', import.meta.url));
const SETTINGS = { name: 'torq', zone: 'UTC', tables: { trade: 'Trade', quote_iex: 'QuoteIEX' }, timeColumns: { trade_iex: 'srctime' }, intPartitions: false, roles: { trades: 'Trade', columns: { Trade: { price: 'price', size: 'size', exchange: 'ex' } } } };
const MAP = leanMap({ conditions: { constant: '' } });

/** The test rows: 60 of them, as an Arrow table of three record batches. */
function arrowTable(): ArrowTable {
  const part = (from: number, to: number): ArrowTable => {
    const n = to - from;
    return new ArrowTable({
      time: makeVector(makeData({ type: new TimestampNanosecond(), length: n, data: BigInt64Array.from({ length: n }, (_, i) => 1709735400000000000n + BigInt(from + i) * 1_000_003n) })),
      sym: vectorFromArray(Array.from({ length: n }, (_, i) => ['AAPL', 'MSFT', 'IBM'][(from + i) % 3]!), new Utf8()),
      price: vectorFromArray(Array.from({ length: n }, (_, i) => 100 + (from + i) / 8), new Float64()),
      size: vectorFromArray(Array.from({ length: n }, (_, i) => BigInt(from + i) * 100n), new Int64()),
    });
  };
  return part(0, 20).concat(part(20, 45), part(45, 60));
}

/** A seeded mutation of a file's bytes: bytes set, an int32 or int64 overwritten with an extreme, cut, cut out, repeated. */
export function mutateBytes(base: Uint8Array, r: Rand): { bytes: Uint8Array; what: string } {
  const b = base.slice();
  const v = new DataView(b.buffer);
  // half the cases aim at the last third, where Parquet's footer and Arrow's file footer are
  const at = (width: number): number => Math.max(0, r.chance(0.5) ? b.length - width - r.int(Math.max(1, Math.floor(b.length / 3))) : r.int(Math.max(1, b.length - width)));
  switch (r.weighted([3, 3, 2, 2, 1, 1])) {
    case 0: {
      const k = 1 + r.int(4);
      const p = at(k);
      for (let i = 0; i < k; i++) b[p + i] = r.int(256);
      return { bytes: b, what: `${k} bytes set at ${p}` };
    }
    case 1: {
      const p = at(4);
      const x = r.pick([0, -1, 0x7fffffff, -0x80000000, b.length, b.length + 1, r.int(1 << 30), -r.int(1000)]);
      v.setInt32(p, x, true);
      return { bytes: b, what: `int32 ${x} at ${p}` };
    }
    case 2: {
      const p = at(8);
      const x = r.pick([0n, -1n, 1n << 62n, -(1n << 63n), BigInt(b.length), BigInt(r.int(1 << 30)) << 8n]);
      v.setBigInt64(p, x, true);
      return { bytes: b, what: `int64 ${x} at ${p}` };
    }
    case 3: {
      const cut = r.int(b.length);
      return { bytes: b.subarray(0, cut), what: `cut at ${cut}` };
    }
    case 4: {
      const p = at(1);
      const n = 1 + r.int(64);
      const out = new Uint8Array(Math.max(0, b.length - n));
      const q = Math.min(p, out.length);
      out.set(b.subarray(0, q));
      out.set(b.subarray(q + n), q);
      return { bytes: out, what: `${n} bytes cut out at ${q}` };
    }
    default: {
      const p = at(1);
      const n = 1 + r.int(64);
      const out = new Uint8Array(b.length + n);
      out.set(b.subarray(0, p));
      out.set(b.subarray(p, p + n), p);
      out.set(b.subarray(p), p + Math.min(n, b.length - p));
      return { bytes: out, what: `${n} bytes repeated at ${p}` };
    }
  }
}

/** A JSON value of some type and size, for replacing an item of a document. */
function jsonValue(r: Rand): unknown {
  switch (r.int(9)) {
    case 0:
      return null;
    case 1:
      return r.pick([0, -1, 1e308, -0, 2 ** 53 + 1, 0.5]);
    case 2:
      return r.pick(['', 'UTC', 'New_York', '../..', 'a b', '{dir}', '(', '^(\\d{8})', '\u0000', 'x'.repeat(100_000)]);
    case 3:
      return r.chance(0.5);
    case 4:
      return [];
    case 5:
      return {};
    case 6:
      return JSON.parse(`${'['.repeat(2000)}${']'.repeat(2000)}`);
    case 7:
      return { source: r.pick([0, 'x', -1, 1e9]), unit: r.pick(['ms', 'ps', 7]), since: r.pick(['epoch', 'midnight', '']) };
    default:
      return Object.fromEntries(Array.from({ length: 1 + r.int(3) }, () => [r.pick(['trade', 'nosuch', '__proto__', 'constructor', '']), r.pick(['Trade', 'time', 7, null])]));
  }
}

/** A seeded mutation of a JSON document: an item replaced, removed or added, or its text cut or garbled. */
export function mutateJson(doc: unknown, r: Rand): { text: string; what: string } {
  const copy = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  // the objects of the document, with their paths
  const objects: Array<[string, Record<string, unknown>]> = [];
  const walk = (o: unknown, path: string): void => {
    if (o && typeof o === 'object' && !Array.isArray(o)) {
      objects.push([path, o as Record<string, unknown>]);
      for (const [k, v] of Object.entries(o)) walk(v, `${path}.${k}`);
    }
  };
  walk(copy, '');
  const [path, o] = r.pick(objects);
  const keys = Object.keys(o);
  switch (r.weighted([4, 1, 2, 2])) {
    case 0: {
      const k = keys.length ? r.pick(keys) : 'x';
      o[k] = jsonValue(r);
      return { text: JSON.stringify(copy), what: `${path}.${k} replaced` };
    }
    case 1: {
      const k = keys.length ? r.pick(keys) : 'x';
      delete o[k];
      return { text: JSON.stringify(copy), what: `${path}.${k} removed` };
    }
    case 2: {
      const k = r.pick(['zones', 'Table', 'columns', 'extra', '']);
      o[k] = jsonValue(r);
      return { text: JSON.stringify(copy), what: `${path}.${k} added` };
    }
    default: {
      const text = JSON.stringify(copy);
      const p = r.int(text.length);
      return r.chance(0.5) ? { text: text.slice(0, p), what: `text cut at ${p}` } : { text: text.slice(0, p) + r.pick(['"', '{', ']', '\\', '\u0000', ',,', 'NaN']) + text.slice(p + 1), what: `text garbled at ${p}` };
    }
  }
}

interface CaseMessage {
  readonly kind: 'case';
  readonly input: FileInput;
  readonly i: number;
  readonly id: string;
}
interface DoneMessage {
  readonly kind: 'done';
  readonly input: FileInput;
  readonly id: string;
  readonly outcome: string;
  readonly finding?: { what: string; detail: string };
}

/** The unmutated files: an Arrow stream and file of three record batches, and a Parquet file of four row groups. */
export async function fileBases(): Promise<{ stream: Uint8Array; file: Uint8Array; parquet: Uint8Array }> {
  const table = arrowTable();
  const csv = ['time,sym,price,size', ...Array.from({ length: 60 }, (_, i) => `2024.03.06D14:30:${String(i).padStart(2, '0')}.000000${String(i).padStart(3, '0')},${['AAPL', 'MSFT', 'IBM'][i % 3]},${100 + i / 8},${i * 100}`)].join('\n');
  const rows: Table = parseCsv(T, csv, 'fuzz.csv');
  const parquet = await resultToParquet({ table: rows, outputTZ: 'UTC', tableName: 'T', timeColumn: 'time', idColumn: 'sym' }, { rowGroupRows: 16 });
  return { stream: tableToIPC(table, 'stream'), file: tableToIPC(table, 'file'), parquet };
}

/**
 * File case `i` of an input for a seed: what was mutated, the name its errors must give, and the
 * call (a JSON case writes its file into `dir`). The same seed and number give the same case.
 */
export function fileCase(seed: number, input: FileInput, i: number, bases: Awaited<ReturnType<typeof fileBases>>, dir: string): { what: string; named: string; run: () => unknown } {
  const r = new Rand(seed, FILE_INPUTS.indexOf(input) + 100, i);
  if (input === 'kdb-settings' || input === 'import-map') {
    const m = mutateJson(input === 'kdb-settings' ? SETTINGS : MAP, r);
    const path = join(dir, `${input}-${i}.json`);
    writeFileSync(path, m.text);
    // mounted on an engine, as --db mounts it: roles are checked against the tables there
    const kdb = existsSync(TORQ) ? (): unknown => new Engine([openMount({ dir: TORQ, kdbSettings: path })]) : (): unknown => openMount({ dir, kdbSettings: path });
    return { what: m.what, named: path, run: input === 'import-map' ? () => readImportMap(path) : kdb };
  }
  const m = mutateBytes(input === 'arrow-stream' ? bases.stream : input === 'arrow-file' ? bases.file : bases.parquet, r);
  const name = input === 'parquet' ? 'fuzz.parquet' : 'fuzz.arrow';
  return { what: m.what, named: name, run: input === 'parquet' ? () => parseParquet(T, m.bytes, name) : () => parseArrow(T, m.bytes, name) };
}

/** Worker: runs cases `count` of each input from `from` on, posting each case before it runs and how it ended. */
async function fileWorker(seed: number, count: number, from: { input: number; i: number }): Promise<void> {
  const post = (m: CaseMessage | DoneMessage): void => parentPort!.postMessage(m);
  const dir = mkdtempSync(join(tmpdir(), 'tickscope-fuzz-files-'));
  try {
    const bases = await fileBases();
    for (let k = from.input; k < FILE_INPUTS.length; k++) {
      const input = FILE_INPUTS[k]!;
      for (let i = k === from.input ? from.i : 0; i < count; i++) {
        const id = `${input}#${i}`;
        post({ kind: 'case', input, i, id });
        const c = fileCase(seed, input, i, bases, dir);
        const t0 = performance.now();
        let outcome = 'ok';
        let finding: DoneMessage['finding'];
        try {
          c.run();
        } catch (e) {
          if (e instanceof TickscopeError) {
            outcome = e.kind;
            // the roles of a kdb+ database's settings are checked on its tables, and name it by its assembly
            const names = e.message.includes(c.named) || (input === 'kdb-settings' && e.message.includes('the settings of the kdb+ database'));
            if (!names) finding = { what: `${c.what}: an error naming neither the file nor the database`, detail: e.message.slice(0, 300) };
          } else {
            outcome = 'not a TickscopeError';
            finding = { what: c.what, detail: e instanceof Error ? `${e.name}: ${e.message.slice(0, 300)}` : String(e) };
          }
        }
        const ms = performance.now() - t0;
        if (!finding && ms > 2000) finding = { what: `${c.what}: slow`, detail: `${ms.toFixed(0)} ms` };
        post({ kind: 'done', input, id, outcome, ...(finding ? { finding } : {}) });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (!isMainThread && (workerData as { fuzzFiles?: boolean } | null)?.fuzzFiles) {
  const d = workerData as { seed: number; count: number; from: { input: number; i: number } };
  await fileWorker(d.seed, d.count, d.from);
}

/** A seeded body of POST /app/api/databases: the right shape mutated, or a path that is no database. */
function databasesBody(r: Rand, dirs: { db: string; settings: string; file: string }): { body: string; type: string; what: string } {
  const paths = [dirs.db, TORQ, dirs.file, '/', '/dev/null', '/proc/self', join(dirs.db, 'nosuch'), '..', '', ' ', 'a\u0000b', 'x'.repeat(5000), '~'];
  const doc: Record<string, unknown> = { dir: r.pick(paths) };
  if (r.chance(0.4)) doc['kdbSettings'] = r.pick([dirs.settings, dirs.file, dirs.db, '/dev/zero', '', 7, null, ['a']]);
  // a fifth as they are (a folder that opens, or a clear refusal), the rest mutated
  const m = r.chance(0.2) ? { text: JSON.stringify(doc), what: 'as it is' } : mutateJson(doc, r);
  const type = r.pick(['application/json', 'application/json', 'application/json', 'text/plain', 'application/json; charset=latin1']);
  return { body: m.text, type, what: `${m.what} of ${JSON.stringify(doc).slice(0, 120)} as ${type}` };
}

/**
 * Runs the file cases (`count` of each input, in a watched worker) and `count` bodies of POST
 * /app/api/databases against an in-process `tickscope serve`; `hangMs` without a case ending is a hang.
 */
export async function runFileFuzz(opts: { seed: number; count: number; hangMs: number; progress?: (line: string) => void }): Promise<FileFuzzReport> {
  const t0 = performance.now();
  const outcomes = new Map<string, Map<string, number>>();
  const findings: FileFinding[] = [];
  const count = (input: string, outcome: string): void => {
    const m = outcomes.get(input) ?? new Map<string, number>();
    m.set(outcome, (m.get(outcome) ?? 0) + 1);
    outcomes.set(input, m);
  };

  // the file cases, in a worker: a case that does not end within hangMs is a hang; the worker is
  // ended and a new one goes on from the next case
  let from: { input: number; i: number } | undefined = { input: 0, i: 0 };
  while (from) {
    const start: { input: number; i: number } = from;
    from = undefined;
    await new Promise<void>((resolve) => {
      const worker = new Worker(fileURLToPath(new URL('./fuzz-files.js', import.meta.url)), { workerData: { fuzzFiles: true, seed: opts.seed, count: opts.count, from: start } });
      let current: CaseMessage | undefined;
      let timer: NodeJS.Timeout | undefined;
      const arm = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          findings.push({ input: current?.input ?? '?', id: current?.id ?? '?', what: 'hang', detail: `no end within ${opts.hangMs} ms; the worker was ended` });
          if (current) {
            count(current.input, 'hang');
            from = current.i + 1 < opts.count ? { input: FILE_INPUTS.indexOf(current.input), i: current.i + 1 } : { input: FILE_INPUTS.indexOf(current.input) + 1, i: 0 };
            if (from.input >= FILE_INPUTS.length) from = undefined;
          }
          void worker.terminate();
        }, opts.hangMs);
      };
      arm();
      worker.on('message', (m: CaseMessage | DoneMessage) => {
        arm();
        if (m.kind === 'case') {
          current = m;
          return;
        }
        count(m.input, m.outcome);
        if (m.finding) findings.push({ input: m.input, id: m.id, ...m.finding });
      });
      worker.on('error', (e) => findings.push({ input: current?.input ?? '?', id: current?.id ?? '?', what: 'the worker failed', detail: e.message }));
      worker.on('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  opts.progress?.(`file cases done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // POST /app/api/databases on an in-process `tickscope serve`
  const dir = mkdtempSync(join(tmpdir(), 'tickscope-fuzz-serve-'));
  try {
    const db = Database.create(join(dir, 'db'));
    const rendererDir = join(dir, 'renderer');
    mkdirSync(rendererDir);
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><html><head><title>fuzz</title></head><body></body></html>');
    const settings = join(dir, 'settings.json');
    writeFileSync(settings, JSON.stringify(SETTINGS));
    const service = await QueryService.start([db.dir], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 }, 'browser');
    const server = await serve(service, { port: 0, host: '127.0.0.1', rendererDir });
    try {
      for (let i = 0; i < opts.count; i++) {
        const id = `databases#${i}`;
        const c = databasesBody(new Rand(opts.seed, 200, i), { db: db.dir, settings, file: settings });
        try {
          const res = await fetch(new URL('app/api/databases', server.url), {
            method: 'POST',
            headers: { 'x-tickscope-token': server.token, 'content-type': c.type },
            body: c.body,
            signal: AbortSignal.timeout(opts.hangMs),
          });
          const text = await res.text();
          count('databases', String(res.status));
          let ai = '';
          try {
            ai = (JSON.parse(text) as { error?: { ai?: string } }).error?.ai ?? '';
          } catch {
            // not JSON: judged below
          }
          if (res.status >= 500) findings.push({ input: 'databases', id, what: `${c.what}: ${res.status}`, detail: text.slice(0, 300) });
          else if (res.status >= 400 && !ai) findings.push({ input: 'databases', id, what: `${c.what}: ${res.status} without an error naming the fault`, detail: text.slice(0, 300) });
        } catch (e) {
          count('databases', 'no answer');
          findings.push({ input: 'databases', id, what: `${c.what}: no answer`, detail: (e as Error).message });
        }
      }
    } finally {
      await server.close();
      await service.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { outcomes, findings, seconds: (performance.now() - t0) / 1000 };
}
