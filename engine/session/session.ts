/**
 * The results a process holds and what is done with them: a query's result (or a remote gateway's
 * answer) is kept by id, then paged, sorted, charted and written whole (Arrow, CSV, Parquet) from
 * there; a query whose result is not kept is answered whole or rendered as the gateway's response.
 * Each executor worker holds its own (executor/worker.ts passes the executor's calls to it); the
 * app's in-process service is one too (service/app-service.ts). The renderer asks for the page of
 * rows it shows and for chart series, never for the whole result.
 */
import { randomUUID } from 'node:crypto';
import { type ChartRequest, MAX_TABLE_ROWS, type PageResponse, type ResultColumn, type RunResponse } from '../contract.js';
import type { SymbolColumn } from '../core/column.js';
import { asTickscopeError, TickscopeError } from '../core/errors.js';
import type { QueryResult } from '../core/result.js';
import { checkResultSize, resultBytes } from '../core/result-limits.js';
import type { Engine } from '../engine.js';
import { sortTable } from '../ops/sort.js';
import { tableToArrow } from '../output/arrow.js';
import { errorEnvelope, okHeader, type RequestInfo, requestInfo } from '../output/envelope.js';
import { RenderHelpers, writeText } from '../output/parallel-text.js';
import { writeResultParquet } from '../output/parquet.js';
import { textCells } from '../output/text-cells.js';
import { textChunks } from '../output/text.js';
import { decodeSortKeys } from '../registry/decode.js';
import { chartSeries } from './chart.js';
import { type EnvelopeAnswer, type EnvelopeRequest, writeEnvelope } from './envelope.js';
import { remoteResult, type RemoteResultMeta } from './remote-result.js';
import { type ImportHooks, type ImportRequest, type PreviewRequest, runImport, runPreview } from './import.js';
import type { ImportPreview, ImportReportInfo } from '../storage/import-types.js';
import type { Source } from '../storage/source.js';

/** Results held for paging, charting and export; the least recently used is dropped first. */
export const MAX_RESULTS = 8;

/** Distinct values of a result's identifier column that occur in it, ascending. */
function resultIds(r: QueryResult): string[] {
  const c = r.table.get(r.idColumn);
  if (!c || c.type !== 'symbol') return [];
  const seen = new Uint8Array(c.dict.length);
  for (let i = 0; i < c.codes.length; i++) seen[c.codes[i]!] = 1;
  const ids = new Set<string>();
  for (let k = 0; k < seen.length; k++) if (seen[k]) ids.add((c as SymbolColumn).dict.get(k));
  ids.delete('');
  return [...ids].sort();
}

/** The row numbers a sort carries through (no result column can be named so). */
const ROW_NUMBER = '\0row';

/** Held results, by id: run or hold one, then page, sort, chart and export it. */
export class Session {
  private readonly results = new Map<string, QueryResult>();

  constructor(
    readonly engine: Engine,
    private readonly limits: {
      readonly maxResultBytes?: number;
      /** Threads an export may render on (the process's query workers setting; default every core). */
      readonly renderThreads?: number;
    } = {},
  ) {}

  /** Forgets a held result (its memory goes back once nothing else holds it). */
  release(resultId: unknown): boolean {
    return typeof resultId === 'string' && this.results.delete(resultId);
  }

  /** Runs an operation; the result is kept for paging, charting and export. */
  run(operation: string, args: unknown): RunResponse {
    const req = requestInfo(operation);
    const started = performance.now();
    try {
      return this.hold(req, this.engine.call(operation, args), started);
    } catch (e) {
      return { ok: false, header: errorEnvelope(req, asTickscopeError(e)).header };
    }
  }

  /** Runs an operation; its result is not kept (the caller takes it whole). */
  call(operation: string, args: unknown): QueryResult {
    return this.engine.call(operation, args);
  }

  /**
   * Runs an operation and writes its result as the gateway's response (envelope.ts): JSON or Arrow
   * through `write`, a q message in the answer; the result is not kept.
   */
  envelope(operation: string, args: unknown, request: EnvelopeRequest, write: (bytes: Uint8Array) => void): EnvelopeAnswer {
    return writeEnvelope(operation, this.engine.call(operation, args), request, write, this.limits.renderThreads);
  }

  /** Import…'s preview: the files, the first file's rows as read and as the mapping makes them (session/import.ts). */
  previewImport(req: PreviewRequest): ImportPreview {
    return runPreview(this.engine, req);
  }

  /** Import…: the files written as the mapping says (a new table defined first, its database opened again by `reopen`). */
  importFiles(req: ImportRequest, hooks: ImportHooks, reopen: (db: Source) => Source): ImportReportInfo {
    return runImport(this.engine, req, hooks, reopen);
  }

  /** Keeps a remote gateway's Arrow answer as a result, like a local one. */
  holdRemote(bytes: Uint8Array, meta: RemoteResultMeta): Extract<RunResponse, { ok: true }> {
    const started = performance.now();
    const { result, req } = remoteResult(bytes, meta);
    return this.hold(req, result, started);
  }

  /** Keeps a result (of a query here, or one a remote gateway answered) for paging, charting and export. */
  hold(req: RequestInfo, result: QueryResult, started: number): Extract<RunResponse, { ok: true }> {
    checkResultSize(result.table.length, resultBytes(result.table.defs, 1), 'the result holds', this.limits.maxResultBytes ?? Infinity);
    const resultId = randomUUID();
    this.results.set(resultId, result);
    while (this.results.size > MAX_RESULTS) this.results.delete(this.results.keys().next().value!);
    const columns: ResultColumn[] = result.table.defs;
    return {
      ok: true,
      resultId,
      header: okHeader(req, result),
      columns,
      rows: result.table.length,
      elapsedMs: performance.now() - started,
      outputTZ: result.outputTZ,
      timeColumn: result.timeColumn && result.table.has(result.timeColumn) ? result.timeColumn : null,
      idColumn: result.table.has(result.idColumn) ? result.idColumn : null,
      ids: resultIds(result),
      groupColumns: result.groupColumns ?? [],
    };
  }

  /**
   * A held result sorted (sortCols forms): a new held result over the same rows, sorted here, never
   * by running its request again (a remote's result sorts the same way).
   */
  sort(resultId: unknown, sortCols: unknown): RunResponse {
    const r = this.result(resultId);
    const req = requestInfo('sort');
    try {
      const keys = decodeSortKeys(sortCols);
      // the rows' numbers ride along (a column no result can name), so the copy knows where each row came from
      const n = r.table.length;
      const numbered = r.table.with(ROW_NUMBER, { type: 'int', data: Int32Array.from({ length: n }, (_, i) => i) });
      const sorted = sortTable(numbered, keys);
      const order = (sorted.col(ROW_NUMBER) as { data: Int32Array }).data;
      const baseRows = r.baseRows ? order.map((i) => r.baseRows![i]!) : order;
      return this.hold(req, { ...r, table: sorted.select(r.table.names), baseRows }, performance.now());
    } catch (e) {
      return { ok: false, header: errorEnvelope(req, asTickscopeError(e)).header };
    }
  }

  private result(resultId: unknown): QueryResult {
    const r = typeof resultId === 'string' ? this.results.get(resultId) : undefined;
    if (!r) throw new TickscopeError('badRequest', `resultId: ${JSON.stringify(resultId)} is not a result held here; run the query again`);
    // least recently used goes first: a result being paged, charted or exported stays
    this.results.delete(resultId as string);
    this.results.set(resultId as string, r);
    return r;
  }

  /**
   * Rows [offset, offset+limit) of a result, rendered as text as in the CSV; timestamps as wall-clock
   * times of outputTZ (the grid's form), or with their offset too (`csv`: what a copy of rows takes).
   */
  page(resultId: unknown, offset: unknown, limit: unknown, form: unknown = 'grid'): PageResponse {
    const r = this.result(resultId);
    if (form !== 'grid' && form !== 'csv' && form !== undefined) {
      throw new TickscopeError('badRequest', `form: ${JSON.stringify(form)} is not a page form; expected grid or csv`);
    }
    const from = Number(offset);
    const count = Number(limit);
    if (!Number.isInteger(from) || from < 0) throw new TickscopeError('badRequest', `offset: ${JSON.stringify(offset)} is not valid; expected an integer >= 0`);
    if (!Number.isInteger(count) || count < 0 || count > 10_000) {
      throw new TickscopeError('badRequest', `limit: ${JSON.stringify(limit)} is not valid; expected an integer from 0 to 10000`);
    }
    const to = Math.min(r.table.length, from + count);
    const cells = r.table.readers((c) => textCells(c, r.outputTZ, '', form === 'csv'));
    const rows: string[][] = [];
    for (let i = from; i < to; i++) rows.push(cells.map((f) => f(i)));
    return r.baseRows ? { offset: from, rows, baseRows: Array.from(r.baseRows.subarray(from, to)) } : { offset: from, rows };
  }

  /** A chart series of a result as Arrow IPC bytes (see ChartBytes in the contract). */
  chart(req: ChartRequest): Uint8Array {
    return chartSeries(this.result(req.resultId), req);
  }

  /** A whole result as Arrow IPC bytes (typed); results over MAX_TABLE_ROWS are refused. */
  table(resultId: unknown): Uint8Array {
    const r = this.result(resultId);
    if (r.table.length > MAX_TABLE_ROWS) {
      throw new TickscopeError('badRequest', `table: the result has ${r.table.length} rows, more than the ${MAX_TABLE_ROWS} sent whole; read it by page or chart`);
    }
    return tableToArrow(r.table);
  }

  /** A whole result as an Arrow IPC stream, typed exactly (longs Int64, timestamps ns with outputTZ), one buffer of its own. */
  arrowFile(resultId: unknown): Uint8Array {
    const r = this.result(resultId);
    const bytes = tableToArrow(r.table, { exact: true, zone: r.outputTZ || 'UTC' });
    return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
  }

  /** A whole result as a Parquet file, a row group at a time to `write` (which may hold it back), and its row count. */
  async parquet(resultId: unknown, write: (bytes: Uint8Array) => void | Promise<void>, onRows?: (done: number, total: number) => void): Promise<{ rows: number }> {
    const r = this.result(resultId);
    await writeResultParquet(r, write, onRows ? { onRows } : {});
    return { rows: r.table.length };
  }

  /**
   * A whole result as CSV through `write` (each chunk the consumer's to keep), rendered on every core
   * for a large result (output/parallel-text.ts), and its row count. `write` may throw to stop it.
   */
  writeCsv(resultId: unknown, write: (chunk: Uint8Array) => void, onRows?: (done: number, total: number) => void, chunkBytes = 1 << 16): { rows: number } {
    const r = this.result(resultId);
    writeText('csv', r.table, r.outputTZ, { chunkBytes, ...(onRows ? { onRows } : {}) }, write, RenderHelpers.forRows(r.table.length, this.limits.renderThreads));
    return { rows: r.table.length };
  }

  /** A whole result as CSV chunks (bytes, rendered as they are pulled), and its row count. */
  csv(resultId: unknown, chunkBytes = 1 << 16, onRows?: (done: number, total: number) => void): { rows: number; chunks: Iterable<Uint8Array> } {
    const r = this.result(resultId);
    return { rows: r.table.length, chunks: textChunks('csv', r.table, r.outputTZ, { chunkBytes, ...(onRows ? { onRows } : {}) }) };
  }
}
