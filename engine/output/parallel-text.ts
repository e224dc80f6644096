/**
 * JSON and CSV rendered on more than one core. The rows are cut into blocks dealt round-robin: the
 * calling thread renders block 0, 0 + T, ... itself and helper threads render the others straight
 * into shared rings of byte slots; the calling thread writes every block in order, its own as it
 * renders them and a helper's as they arrive, so the output is byte for byte the one-thread text
 * (textChunks), at up to T times its pace.
 *
 * The helpers read the result's columns where they are (stored data and dictionaries lie in
 * SharedArrayBuffers; anything else is copied once with the job). A helper that fails or goes silent
 * costs speed, never output: the calling thread renders what is left itself (core/helpers.ts).
 *
 * Synchronous on purpose: it serves writers that block anyway (the CLI's standard output); the
 * calling thread waits on the rings with Atomics.wait.
 */
import { availableParallelism } from 'node:os';
import { type HelperOptions, HelperThreads } from '../core/helpers.js';
import { Table } from '../core/table.js';
import { decodeColumn, encodeColumn, type EncodedColumn } from '../parallel/transfer.js';
import { builtScript } from '../parallel/built-script.js';
import { Out } from './out.js';
import { newRing, Ring, RingProducer } from './ring.js';
import type { ReadHelpers, ReadJob } from '../storage/parallel-read.js';
import type { ArrowJob } from './arrow-batch.js';
import { RowRenderer, textChunks, textFraming, type TextOptions } from './text.js';

type Format = 'json' | 'csv';

/** Rows per block: about 1–3 MB of text, small beside a ring, large beside a hand-over. */
export const BLOCK_ROWS = 8192;
/** Slots of a ring and bytes per slot: a helper runs up to a ring ahead of the writer. */
const SLOTS = 16;
const SLOT_BYTES = 1 << 20;
/** Fewest rows worth a helper: below this the one-thread renderer is done before a helper starts. */
const MIN_ROWS = 4 * BLOCK_ROWS;

/** A slot holding the text of its rows; or a row too wide for a slot, which the writer renders itself. */
const BYTES = 0;
const YOURS = 1;

/** The job a helper is sent. */
export interface TextJob {
  readonly kind: 'text';
  readonly format: Format;
  readonly zone: string;
  readonly names: readonly string[];
  readonly length: number;
  readonly sources: ReadonlyArray<{ readonly column: EncodedColumn; readonly index: Int32Array | null }>;
  /** This helper's place among the T renderers (the writer is 0) and T. */
  readonly place: number;
  /** Bytes per piece handed over (at most a slot's). */
  readonly chunkBytes: number;
  readonly threads: number;
  readonly ring: SharedArrayBuffer;
}

/**
 * Render helper threads (the built render-worker.cjs), started ahead of the query they will render
 * (their start-up overlaps it): they serve read jobs, then at most one text or Arrow job each.
 */
export class RenderHelpers extends HelperThreads<ReadJob | TextJob | ArrowJob> {
  /**
   * Helpers for a table of `rows` rows rendered on up to `threads` threads (default, and at most,
   * the machine's cores; at most 4 in all), or null when not worth it.
   */
  static forRows(rows: number, threads = Infinity): RenderHelpers | null {
    const n = Math.min(threads, availableParallelism(), 4);
    return rows >= MIN_ROWS && n > 1 ? RenderHelpers.start(n - 1) : null;
  }

  /** `count` helper threads. */
  static start(count: number, options: HelperOptions = {}): RenderHelpers {
    return new RenderHelpers(builtScript('render-worker.cjs'), count, options);
  }

  /** Sends every helper a read job (storage/parallel-read.ts): they serve reads until a render job. */
  read(job: ReadJob): void {
    this.post(job);
  }

  /**
   * Sends each helper a job made for its place among the count + 1 renderers (the writer is 0), and
   * returns the writer's side of each one's ring.
   */
  rings(job: (place: number, threads: number) => TextJob | ArrowJob): Ring[] {
    return this.postEach(job).map((j) => new Ring(j.ring, this.silentMs));
  }

  /** Sends each helper its share of a table; null when the table cannot be shared (strings, lists). */
  send(format: Format, t: Table, zone: string, chunkBytes: number): Ring[] | null {
    const sources = shareable(t);
    if (!sources) return null;
    return this.rings((place, threads): TextJob => ({ kind: 'text', format, zone, names: t.names, length: t.length, sources, place, threads, chunkBytes, ring: newRing(SLOTS, SLOT_BYTES) }));
  }
}

/**
 * Helpers for a synchronous caller that queries, then renders the result (the CLI's call): started
 * at the query's first large read and sharing its reads, then kept to render a large result, or closed.
 */
export class QueryThenRender {
  private helpers: RenderHelpers | null = null;

  constructor(private readonly threads = Infinity) {}

  /** What storage/parallel-read.ts sends this thread's large reads to (undefined on one core). */
  reads(): ReadHelpers | undefined {
    const n = Math.min(this.threads, availableParallelism(), 4);
    return n > 1 ? (job) => (this.helpers ??= RenderHelpers.start(n - 1)).read(job) : undefined;
  }

  /** Starts the helpers now (they load while the query runs), on more than one core. */
  start(): void {
    const n = Math.min(this.threads, availableParallelism(), 4);
    if (n > 1) this.helpers ??= RenderHelpers.start(n - 1);
  }

  /** The helpers to render a result of `rows` rows (those started for the reads, if any), or null. */
  forRows(rows: number): RenderHelpers | null {
    const started = this.helpers;
    this.helpers = null;
    if (!started) return RenderHelpers.forRows(rows, this.threads);
    if (rows >= MIN_ROWS) return started;
    started.close();
    return null;
  }

  /** Stops helpers no render took. */
  close(): void {
    this.helpers?.close();
    this.helpers = null;
  }
}

/** The columns of a table as a job carries them, or null when one cannot travel by reference or copy. */
function shareable(t: Table): TextJob['sources'] | null {
  const sources: Array<{ column: EncodedColumn; index: Int32Array | null }> = [];
  for (const { column, index } of t.sources()) {
    if (column.type === 'string' || column.type === 'float[]' || column.type === 'long[]') return null;
    sources.push({ column: encodeColumn(column), index });
  }
  return sources;
}

/**
 * Writes a table as JSON (the payload array) or CSV through `write`, rendered on this thread and the
 * helpers (textChunks alone when there are none, the table is small or cannot be shared), with the
 * options of textChunks: a chunk is the consumer's to keep unless `reuse`. An exception thrown by
 * `write` or `onRows` (a cancel) stops the rendering. The helpers are closed when it returns.
 */
export function writeText(format: Format, t: Table, zone: string, opts: TextOptions, write: (chunk: Uint8Array) => void, helpers: RenderHelpers | null): void {
  const chunkBytes = Math.min(opts.chunkBytes ?? 1 << 20, SLOT_BYTES - 4096);
  const rings = helpers && helpers.count > 0 && t.length >= MIN_ROWS ? helpers.send(format, t, zone, chunkBytes) : null;
  if (!rings) {
    helpers?.close();
    for (const chunk of textChunks(format, t, zone, opts)) write(chunk);
    return;
  }
  const reuse = opts.reuse === true;
  try {
    const threads = rings.length + 1;
    const o = new Out(write, opts.chunkBytes, reuse);
    const rows = new RowRenderer(t, zone, format);
    const { head, tail, sep } = textFraming(format, t, opts);
    o.text(head);
    const own = (from: number, to: number): void => {
      for (let i = from; i < to; ) {
        i = rows.fill(o, i, sep, to);
        if (i < to) o.flush(); // the chunk is full (or the next row needs a fresh one)
      }
    };
    const live = rings.map(() => true);
    const blocks = Math.ceil(t.length / BLOCK_ROWS);
    for (let k = 0; k < blocks; k++) {
      const from = k * BLOCK_ROWS;
      const to = Math.min(t.length, from + BLOCK_ROWS);
      const place = k % threads;
      if (place === 0 || !live[place - 1]) {
        own(from, to);
        opts.onRows?.(to, t.length);
        continue;
      }
      o.flush(); // this thread's rows so far go out before the helper's
      const ring = rings[place - 1]!;
      for (let done = from; done < to; ) {
        const piece = ring.next();
        if (!piece || piece.from !== done) {
          // the helper failed: its rows are rendered here from now on
          live[place - 1] = false;
          ring.stop();
          own(done, to);
          break;
        }
        if (piece.kind === BYTES) write(reuse ? piece.bytes : piece.bytes.slice());
        else {
          own(piece.from, piece.to);
          o.flush(); // before the helper's next piece
        }
        done = piece.to;
        ring.release();
      }
      opts.onRows?.(to, t.length);
    }
    o.text(tail);
    o.flush();
  } finally {
    for (const r of rings) r.stop();
    helpers!.close();
  }
}

/** The helper's side: renders its blocks of the job's table into its ring, in order. */
export function renderJob(job: TextJob): void {
  const ring = new RingProducer(job.ring);
  try {
    const t = Table.fromSources(
      job.names,
      job.sources.map((s) => ({ column: decodeColumn(s.column), index: s.index })),
      job.length,
    );
    const rows = new RowRenderer(t, job.zone, job.format);
    const { sep } = textFraming(job.format, t, {});
    const o = new SlotOut(job.chunkBytes);
    for (let k = job.place, blocks = Math.ceil(job.length / BLOCK_ROWS); k < blocks; k += job.threads) {
      const to = Math.min(job.length, (k + 1) * BLOCK_ROWS);
      for (let from = k * BLOCK_ROWS; from < to; ) {
        const slot = ring.free(); // the writer releases slots in order
        if (!slot) return;
        o.into(slot);
        let next: number;
        try {
          next = rows.fill(o, from, sep, to);
        } catch (e) {
          if (!(e instanceof TooWide)) throw e;
          ring.publish(from, from + 1, 0, YOURS); // a row wider than a slot: the writer renders it
          from++;
          continue;
        }
        ring.publish(from, next, o.pos, BYTES);
        from = next;
      }
    }
  } catch (e) {
    ring.fail();
    throw e;
  }
}

class TooWide extends Error {}

/** An Out over one slot of a ring: a row that does not fit an empty slot is not grown into one. */
class SlotOut extends Out {
  constructor(chunkBytes: number) {
    super(() => {}, chunkBytes, true);
  }

  into(slot: Uint8Array): void {
    this.buf = slot;
    this.pos = 0;
  }

  override grow(): void {
    throw new TooWide();
  }
}
