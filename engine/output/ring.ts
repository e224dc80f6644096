/**
 * A ring of byte slots in a SharedArrayBuffer between one helper thread (the producer) and the writer
 * (the consumer): the helper fills slots in order and publishes each, the writer takes them in order
 * and releases each once written. Both sides read the ring's geometry from the buffer itself.
 *
 * Used by the render helpers (parallel-text.ts for JSON and CSV, arrow-batch.ts for Arrow record
 * batches): what a slot holds is theirs to say, the ring only carries rows [from, to), a byte count
 * and a kind per slot. The ring's first words are a helper job's (core/helpers.ts: HelperWork): a
 * slot published is a piece done, and a failure or a stop is the job's.
 */
import { HelperWork } from '../core/helpers.js';

// the job's control words, then the ring's, then four per slot: rows [from, to), bytes, kind
const CONSUMED = HelperWork.WORDS;
const SLOTS = HelperWork.WORDS + 1;
const SLOT_BYTES = HelperWork.WORDS + 2;
const META = 8;

const ctrlWords = (slots: number): number => META + 4 * slots;
/** Slot data starts 8-aligned, as do the slots (their size is rounded up to 8). */
const dataStart = (slots: number): number => Math.ceil((4 * ctrlWords(slots)) / 8) * 8;

/** A new ring of `slots` slots of `slotBytes` bytes each (rounded up to a multiple of 8). */
export function newRing(slots: number, slotBytes: number): SharedArrayBuffer {
  const bytes = Math.ceil(slotBytes / 8) * 8;
  const buffer = new SharedArrayBuffer(dataStart(slots) + slots * bytes);
  const ctrl = new Int32Array(buffer, 0, ctrlWords(slots));
  ctrl[SLOTS] = slots;
  ctrl[SLOT_BYTES] = bytes;
  return buffer;
}

/** A ring's control words and slots, as either side sees them. */
class RingViews {
  readonly ctrl: Int32Array;
  readonly slots: number;
  readonly slotBytes: number;
  readonly data: Uint8Array;
  /** The job's control: slots published (done), a failure, a stop. */
  readonly work: HelperWork;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.work = new HelperWork(buffer);
    const head = new Int32Array(buffer, 0, META);
    this.slots = head[SLOTS]!;
    this.slotBytes = head[SLOT_BYTES]!;
    this.ctrl = new Int32Array(buffer, 0, ctrlWords(this.slots));
    this.data = new Uint8Array(buffer, dataStart(this.slots));
  }

  /** Slot `s`'s whole bytes. */
  slot(s: number): Uint8Array {
    return this.data.subarray(s * this.slotBytes, (s + 1) * this.slotBytes);
  }
}

/** A piece a helper handed over: its rows, its kind, and the bytes it filled of its slot. */
export interface Piece {
  readonly from: number;
  readonly to: number;
  readonly kind: number;
  readonly bytes: Uint8Array;
}

/** The writer's side of a ring. */
export class Ring extends RingViews {
  private taken = 0;

  constructor(
    buffer: SharedArrayBuffer,
    /** How long the helper may hand nothing over before next() gives it up. */
    private readonly silentMs: number,
  ) {
    super(buffer);
  }

  /** The next piece (waiting for it), or null when the helper failed or went silent. */
  next(): Piece | null {
    const { ctrl } = this;
    if (!this.work.awaitDone(this.taken, this.silentMs)) return null;
    const s = this.taken % this.slots;
    const m = META + 4 * s;
    return { from: ctrl[m]!, to: ctrl[m + 1]!, kind: ctrl[m + 3]!, bytes: this.slot(s).subarray(0, ctrl[m + 2]!) };
  }

  /** Whether next() would answer without waiting (a piece is there, or the helper failed). */
  ready(): boolean {
    return this.work.doneCount > this.taken || this.work.failed;
  }

  /** The piece from next() is written: its slot is free again. */
  release(): void {
    this.taken++;
    Atomics.store(this.ctrl, CONSUMED, this.taken);
    Atomics.notify(this.ctrl, CONSUMED);
  }

  /** No more pieces are wanted: the helper stops at its next slot. */
  stop(): void {
    this.work.stop();
    Atomics.notify(this.ctrl, CONSUMED);
  }
}

/** The helper's side of a ring. */
export class RingProducer extends RingViews {
  private produced = 0;

  /** The next free slot's bytes (waiting for the writer to release one), or null once the writer stopped. */
  free(): Uint8Array | null {
    const { ctrl } = this;
    while (this.produced - Atomics.load(ctrl, CONSUMED) >= this.slots) {
      if (this.work.stopped) return null;
      Atomics.wait(ctrl, CONSUMED, this.produced - this.slots, 1000);
    }
    return this.work.stopped ? null : this.slot(this.produced % this.slots);
  }

  /** Hands over the slot free() gave: rows [from, to), its first `bytes` bytes, of kind `kind`. */
  publish(from: number, to: number, bytes: number, kind: number): void {
    const { ctrl } = this;
    const m = META + 4 * (this.produced % this.slots);
    ctrl[m] = from;
    ctrl[m + 1] = to;
    ctrl[m + 2] = bytes;
    ctrl[m + 3] = kind;
    this.produced++;
    this.work.done();
  }

  /** The helper failed: the writer does the rest itself. */
  fail(): void {
    this.work.fail();
  }
}
