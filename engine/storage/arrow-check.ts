/**
 * An Arrow IPC file's framing checked before apache-arrow reads it (issue 30): every length the
 * file claims (each message's metadata length and body length, a file's footer length and its
 * blocks, a record batch's buffers and row counts) is checked against the bytes present, so a
 * damaged file is an importFailed error naming the file, the message and both lengths, never a
 * RangeError, a silently short column or an allocation the bytes cannot back.
 *
 * Stream format: messages, each an optional 0xFFFFFFFF continuation, an int32 metadata length, a
 * flatbuffer Message (its bodyLength an int64) and the body; a zero length ends the stream. File
 * format: "ARROW1" and padding, the same messages, a flatbuffer Footer whose blocks say where each
 * dictionary and record batch is, the footer's int32 length and "ARROW1". The flatbuffers are read
 * by a small reader (arrow-flat.ts: only the fields checked here, every read bounds-checked); each
 * record batch's buffers are checked against its schema's fields in arrow-layout.ts.
 */
import { TickscopeError } from '../core/errors.js';
import { Damage, Flat, n, safe } from './arrow-flat.js';
import { checkBuffers, type SchemaAt } from './arrow-layout.js';

const MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31]; // "ARROW1"
const CONTINUATION = -1; // 0xFFFFFFFF
const SCHEMA = 1;
const DICTIONARY_BATCH = 2;
const RECORD_BATCH = 3;

/**
 * A record batch's row count, nodes and buffers against its body: every buffer within the body, and
 * no node claiming more values than its body's bits (every Arrow type but the null type takes at
 * least a bit a value; a compressed body is not bounded so).
 */
function checkBatch(fb: Flat, rb: number, body: number): void {
  const rows = fb.i64(rb, 0, 'record batch length');
  const compressed = fb.ref(rb, 3, 'compression') !== undefined;
  const most = 8 * body + 64;
  if (rows < 0n) throw new Damage(`its length (rows) is ${n(rows)}`);
  if (!compressed && rows > BigInt(most)) throw new Damage(`it claims ${n(rows)} rows in a body of ${n(body)} bytes (at most ${n(most)} fit, a bit a value)`);
  const nodes = fb.vector(fb.ref(rb, 1, 'nodes'), 16, 'nodes');
  for (let k = 0; k < nodes.count; k++) {
    const length = fb.i64At(nodes.first + 16 * k);
    const nulls = fb.i64At(nodes.first + 16 * k + 8);
    if (length < 0n || nulls < 0n || nulls > length) throw new Damage(`its field node ${k + 1} claims ${n(length)} values with ${n(nulls)} nulls`);
    if (!compressed && length > BigInt(most)) throw new Damage(`its field node ${k + 1} claims ${n(length)} values in a body of ${n(body)} bytes (at most ${n(most)} fit, a bit a value)`);
  }
  fb.vector(fb.ref(rb, 4, 'variadicBufferCounts'), 8, 'variadicBufferCounts');
  const buffers = fb.vector(fb.ref(rb, 2, 'buffers'), 16, 'buffers');
  for (let k = 0; k < buffers.count; k++) {
    const offset = fb.i64At(buffers.first + 16 * k);
    const length = fb.i64At(buffers.first + 16 * k + 8);
    if (offset < 0n || length < 0n || offset + length > BigInt(body)) {
      throw new Damage(`its buffer ${k + 1} (offset ${n(offset)}, length ${n(length)}) lies outside its body of ${n(body)} bytes`);
    }
  }
}

/** Fields nested deeper than this are damage (apache-arrow decodes them recursively). */
const MAX_DEPTH = 64;

/**
 * A schema's vectors (its fields, each field's children and custom metadata, recursively) within
 * its metadata: apache-arrow's decoder trusts their counts, and loops on a count the bytes cannot hold.
 */
function checkSchema(fb: Flat, schema: number): void {
  // a field takes 4 bytes at least: more fields than that are tables shared between vectors
  let budget = Math.floor(fb.size / 4);
  const fields = (vec: number | undefined, depth: number, what: string): void => {
    if (depth > MAX_DEPTH) throw new Damage(`its schema nests fields deeper than ${MAX_DEPTH}`);
    const list = fb.vector(vec, 4, what);
    budget -= list.count;
    if (budget < 0) throw new Damage(`its schema has more fields than its ${n(fb.size)} bytes hold`);
    for (let k = 0; k < list.count; k++) {
      const field = fb.deref(list.first + 4 * k, what);
      fb.vector(fb.ref(field, 0, 'field name'), 1, 'field name');
      fb.vector(fb.ref(field, 6, 'field custom_metadata'), 4, 'field custom_metadata');
      fields(fb.ref(field, 5, 'field children'), depth + 1, 'field children');
    }
  };
  fields(fb.ref(schema, 1, 'schema fields'), 0, 'schema fields');
  fb.vector(fb.ref(schema, 2, 'schema custom_metadata'), 4, 'schema custom_metadata');
  fb.vector(fb.ref(schema, 3, 'schema features'), 8, 'schema features');
}

/** What a message is called in an error: by its header type and how many of that type came before. */
class Names {
  private readonly seen = new Map<number, number>();
  name(type: number, index: number): string {
    const k = (this.seen.get(type) ?? 0) + 1;
    this.seen.set(type, k);
    return type === SCHEMA ? 'the schema message' : type === DICTIONARY_BATCH ? `dictionary batch ${k}` : type === RECORD_BATCH ? `record batch ${k}` : `message ${index}`;
  }
}

interface Message {
  /** The message's type (SCHEMA, DICTIONARY_BATCH, RECORD_BATCH, ...), 0 at the end of a stream. */
  readonly type: number;
  readonly name: string;
  /** Where its body starts, and how long it is. */
  readonly bodyStart: number;
  readonly bodyLength: number;
  /** A schema message's schema. */
  readonly schema?: SchemaAt;
}

/**
 * The encapsulated message at `at` (continuation, metadata length, Message flatbuffer), its
 * metadata and body checked against `end`; `metaEnd` bounds the metadata (a file block's
 * metaDataLength). A zero metadata length is the end of a stream (type 0).
 */
function readMessage(v: DataView, at: number, end: number, label: string, nameOf: (type: number) => string, schema: SchemaAt | undefined, metaEnd = end): Message {
  const left = (p: number): string => `${n(Math.max(0, end - p))} bytes are left`;
  if (at + 4 > metaEnd) throw new TickscopeError('importFailed', `${label}: its metadata length is cut off (${left(at)}, 4 needed)`);
  let p = at;
  let length = v.getInt32(p, true);
  if (length === CONTINUATION) {
    p += 4;
    if (p + 4 > metaEnd) throw new TickscopeError('importFailed', `${label}: its metadata length is cut off after the continuation marker (${left(p)}, 4 needed)`);
    length = v.getInt32(p, true);
  }
  p += 4;
  if (length === 0) return { type: 0, name: label, bodyStart: p, bodyLength: 0 };
  if (length < 0) throw new TickscopeError('importFailed', `${label}: its metadata length is ${n(length)}, negative`);
  if (p + length > metaEnd) {
    const limit = metaEnd < end ? `its block's metaDataLength leaves ${n(metaEnd - p)}` : left(p);
    throw new TickscopeError('importFailed', `${label}: its metadata length ${n(length)} runs past the end (${limit})`);
  }
  const fb = new Flat(v, p, p + length);
  let name = label;
  try {
    const msg = fb.root();
    const type = fb.u8(msg, 1, 'header type');
    name = nameOf(type);
    if (type !== SCHEMA && type !== DICTIONARY_BATCH && type !== RECORD_BATCH) throw new Damage(`its header type ${type} is not a schema (1), dictionary batch (2) or record batch (3)`);
    // before V4 (Arrow 0.8), buffers were laid out otherwise: apache-arrow reads them by another stride
    const version = fb.i16(msg, 0, 'version');
    if (version < 3) throw new Damage(`its metadata version is V${version + 1}; Arrow IPC files are V4 or later (Arrow 0.8, 2017)`);
    const claimed = fb.i64(msg, 3, 'bodyLength');
    const bodyStart = p + length;
    const body = safe(claimed);
    if (body === undefined) throw new Damage(`its bodyLength is ${n(claimed)}`);
    if (bodyStart + body > end) throw new Damage(`its body is cut short: bodyLength ${n(body)} bytes, ${left(bodyStart)}`);
    const header = fb.ref(msg, 2, 'header');
    if (type === SCHEMA && header !== undefined) {
      checkSchema(fb, header);
      return { type, name, bodyStart, bodyLength: body, schema: { fb, table: header } };
    }
    if (type === RECORD_BATCH && header !== undefined) {
      checkBatch(fb, header, body);
      // a compressed body's buffers are their compressed bytes
      if (schema && fb.ref(header, 3, 'compression') === undefined) checkBuffers(schema, fb, header);
    }
    if (type === DICTIONARY_BATCH && header !== undefined) {
      const data = fb.ref(header, 1, 'dictionary data');
      if (data !== undefined) checkBatch(fb, data, body);
    }
    return { type, name, bodyStart, bodyLength: body };
  } catch (e) {
    if (e instanceof Damage || e instanceof RangeError) throw new TickscopeError('importFailed', `${name === label ? label : `${name} (${label})`}: ${e.message}`);
    throw e;
  }
}

/** Checks a stream-format file's messages, one after another, up to its end or end-of-stream marker. */
function checkStream(v: DataView, file: string): void {
  const names = new Names();
  let at = 0;
  let schema: SchemaAt | undefined;
  for (let index = 1; at < v.byteLength; index++) {
    let m: Message;
    try {
      m = readMessage(v, at, v.byteLength, `message ${index} at byte ${n(at)}`, (type) => names.name(type, index), schema);
    } catch (e) {
      if (!(e instanceof TickscopeError)) throw e;
      // nothing readable at the start: the file is not Arrow at all
      throw new TickscopeError('importFailed', index === 1 ? `${file}: not an Arrow IPC file (${e.message}; the file is ${n(v.byteLength)} bytes)` : `${file}: damaged: ${e.message} (the file is ${n(v.byteLength)} bytes)`);
    }
    if (index === 1 && m.type !== SCHEMA) throw new TickscopeError('importFailed', `${file}: not an Arrow IPC file (its first message is not a schema; the file is ${n(v.byteLength)} bytes)`);
    if (m.type === 0) return;
    schema = m.schema ?? schema;
    at = m.bodyStart + m.bodyLength;
  }
  if (at === 0) throw new TickscopeError('importFailed', `${file}: not an Arrow IPC file (it is empty)`);
}

/** Checks a file-format file: its magic at both ends, its footer's length, and every block and the message there. */
function checkFile(v: DataView, file: string): void {
  const size = v.byteLength;
  const fail = (msg: string): never => {
    throw new TickscopeError('importFailed', `${file}: damaged: ${msg} (the file is ${n(size)} bytes)`);
  };
  if (size < 18) fail('too short for an Arrow IPC file: its leading "ARROW1" is there but not its footer and trailing "ARROW1"');
  if (!MAGIC.every((b, i) => v.getUint8(size - 6 + i) === b)) fail('it starts with "ARROW1" but does not end with it: cut short or damaged at its end');
  const footerLength = v.getInt32(size - 10, true);
  const footerStart = size - 10 - footerLength;
  if (footerLength <= 0 || footerStart < 8) fail(`its footer length ${n(footerLength)} is past the file's start`);
  const fb = new Flat(v, footerStart, size - 10);
  try {
    const footer = fb.root();
    const table = fb.ref(footer, 1, 'schema');
    if (table !== undefined) checkSchema(fb, table);
    const schema = table === undefined ? undefined : { fb, table };
    const lists: Array<[number, string]> = [
      [2, 'dictionary batch'],
      [3, 'record batch'],
    ];
    for (const [id, kind] of lists) {
      const blocks = fb.vector(fb.ref(footer, id, `${kind} blocks`), 24, `${kind} blocks`);
      for (let k = 0; k < blocks.count; k++) {
        const b = blocks.first + 24 * k;
        const offset = safe(fb.i64At(b));
        const metaLength = fb.i32At(b + 8);
        const bodyLength = safe(fb.i64At(b + 16));
        const label = `${kind} ${k + 1}`;
        if (offset === undefined || offset < 8 || offset >= footerStart) fail(`${label}: its footer block's offset ${n(fb.i64At(b))} is outside the file's messages (bytes 8 to ${n(footerStart)})`);
        if (metaLength <= 0 || offset! + metaLength > footerStart) fail(`${label}: its footer block's metaDataLength ${n(metaLength)} runs past the messages' end (${n(footerStart - offset!)} bytes are left)`);
        if (bodyLength === undefined || offset! + metaLength + bodyLength! > footerStart) {
          fail(`${label}: its body is cut short: its footer block's bodyLength ${n(fb.i64At(b + 16))} bytes, ${n(footerStart - offset! - metaLength)} bytes are left before the footer`);
        }
        let m: Message;
        try {
          m = readMessage(v, offset!, footerStart, label, () => label, schema, offset! + metaLength);
        } catch (e) {
          if (e instanceof TickscopeError) return fail(e.message);
          throw e;
        }
        // apache-arrow's file reader reads a block again until it finds the message it expects there
        if (m.type !== (id === 2 ? DICTIONARY_BATCH : RECORD_BATCH)) fail(`${label}: its footer block points at a message of header type ${m.type}, not a ${kind}`);
        if (m.bodyLength !== bodyLength) fail(`${label}: its message's bodyLength ${n(m.bodyLength)} is not its footer block's ${n(bodyLength!)}`);
      }
    }
  } catch (e) {
    if (e instanceof Damage || e instanceof RangeError) fail(`its footer: ${e.message}`);
    throw e;
  }
}

/**
 * Checks an Arrow IPC file's (file or stream format) framing against its bytes, or fails with an
 * importFailed error naming the file, the message at fault and the lengths claimed and present.
 */
export function checkArrowFraming(bytes: Uint8Array, file: string): void {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const isFile = bytes.length >= 6 && MAGIC.every((b, i) => bytes[i] === b);
  if (isFile) checkFile(v, file);
  else checkStream(v, file);
}
