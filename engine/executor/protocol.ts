/** Messages between the executor (the serving thread) and its query workers. */
import type { MountSpec } from '../storage/mount.js';
import type { MessagePort } from 'node:worker_threads';
import type { ErrorKindName } from '../core/errors.js';
import type { PartRequest } from '../core/query-hooks.js';
import type { EncodedResult } from '../parallel/transfer.js';
import type { ProcessSettings } from './settings.js';

/** A worker's synchronous line to the executor's shared column store. */
export interface StoreLine {
  readonly port: MessagePort;
  /** Int32Array over it: [0] becomes 1 when the executor has answered. */
  readonly signal: SharedArrayBuffer;
}

/**
 * A worker's line for the results of its query's parts: the executor posts each part's result on the
 * port, then adds 1 to [0] of the Int32Array over `signal` and notifies (the worker waits on it).
 */
export interface PartsLine {
  readonly port: MessagePort;
  readonly signal: SharedArrayBuffer;
}

/** A part's result, forwarded to the worker running the query it belongs to. */
export type PartResult =
  | { readonly callId: number; readonly index: number; readonly ok: true; readonly result: EncodedResult }
  | { readonly callId: number; readonly index: number; readonly ok: false; readonly error: { readonly kind: ErrorKindName; readonly message: string } };

export type StoreRequest =
  | { readonly op: 'column'; readonly key: string }
  | { readonly op: 'putColumn'; readonly key: string; readonly width: number; readonly data: SharedArrayBuffer; readonly loaded: SharedArrayBuffer }
  | { readonly op: 'file'; readonly key: string }
  | { readonly op: 'put'; readonly key: string; readonly bytes: Uint8Array }
  /** Idle workers for the parts of the asking worker's running query (answer: how many were reserved). */
  | { readonly op: 'reserve'; readonly max: number }
  /** Starts parts on the reserved workers (answer: true); reserved workers left over are freed. */
  | { readonly op: 'parts'; readonly parts: readonly PartRequest[] };

/** What a worker is started with. */
export interface WorkerInit {
  /** The databases mounted when it starts (storage/mount.ts); later ones come as mount messages. */
  readonly dbs: readonly MountSpec[];
  readonly settings: ProcessSettings;
  readonly store?: StoreLine;
  readonly parts?: PartsLine;
  /** Int32Array over it: [0] the id of the call to stop (0: none), [1] why (1 cancelled, 2 timeout). */
  readonly cancel: SharedArrayBuffer;
  /**
   * Int32Array over it: [0] chunks of the running call the executor's caller has taken. A worker
   * streaming chunks (CSV, the gateway's JSON) stays at most FLOW_WINDOW chunks ahead of it, so a slow
   * reader holds back the worker instead of filling the serving thread's memory. [1] the chunks it
   * has sent while it waits so held back (0: not held).
   */
  readonly flow: SharedArrayBuffer;
}

/**
 * What a worker runs: the Session's methods (executor/worker.ts), among them `call` (a result taken
 * whole), `envelope` (a result rendered as the gateway's response, streamed: session/envelope.ts) and
 * `part` (one part of a split query, taken whole).
 */
export type WorkerMethod = 'run' | 'call' | 'envelope' | 'hold' | 'part' | 'sort' | 'page' | 'chart' | 'table' | 'csv' | 'arrow' | 'parquet' | 'release' | 'import' | 'preview';

/** Mounts or unmounts a database on a running worker (the app's Open database…, Close), or opens it again (its schema changed: Import… added a table). */
export type MountMessage = { readonly kind: 'mount'; readonly spec: MountSpec } | { readonly kind: 'unmount'; readonly name: string } | { readonly kind: 'reopen'; readonly dir: string };

export interface CallMessage {
  readonly kind: 'call';
  readonly id: number;
  readonly method: WorkerMethod;
  readonly params: readonly unknown[];
}

export type WorkerMessage =
  | { readonly kind: 'ready' }
  | { readonly kind: 'progress'; readonly id: number; readonly done: number; readonly total: number; readonly unit: string }
  | { readonly kind: 'chunk'; readonly id: number; readonly bytes: Uint8Array }
  | { readonly kind: 'done'; readonly id: number; readonly value: unknown }
  | { readonly kind: 'fail'; readonly id: number; readonly error: { readonly kind: ErrorKindName; readonly message: string } };

/** Chunks a worker may stream ahead of its reader (about 1 MiB of 64 KiB chunks). */
export const FLOW_WINDOW = 16;

export const CANCELLED = 1;
export const TIMED_OUT = 2;
