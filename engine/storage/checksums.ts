/**
 * Checksums of a partition's files, so that a damaged file is an error naming it, never wrong rows.
 *
 * Reads are partial (row blocks by positioned reads, lazily, on several threads), so a checksum of a
 * whole file could not be checked by them: each file is cut into chunks of SUM_CHUNK bytes and each
 * chunk has its CRC-32 (zlib's, native: ~5 GB/s here). A read checks the chunks it touches: those it
 * holds whole from its own bytes, the one or two it holds in part by reading them whole into a
 * scratch buffer. The chunks checked are remembered (files never change once written), so a file read
 * in 64-row blocks has each chunk checked once, not once per block; the bitmap is shared memory, handed
 * to the helper threads that fill a streamed result's batches (shareSums), so that one check serves
 * every thread.
 *
 * One sidecar per partition folder, `_sums.crc32`, written with the folder (before the manifest names
 * it, so it is as atomic as the folder):
 *
 *   "TSUM"                          4 bytes
 *   header length H                 uint32 LE
 *   header                          H bytes of JSON: {"version":1,"algorithm":"crc32","chunkBytes":16384,
 *                                   "files":{"<name>":[bytes, first chunk's index], ...}}, padded to 4
 *   chunk CRCs                      uint32 LE each, every file's in turn
 *   CRC-32 of all the bytes above   uint32 LE (the sidecar checks itself)
 *
 * Checksums are keyed by path for the life of a thread, as the shared column store keys columns: a
 * partition folder's path names its contents (a write makes new folders). Database.open forgets the
 * entries under its folder, for a database made again at the same path.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { join, sep } from 'node:path';
import { crc32 } from 'node:zlib';
import { TickscopeError } from '../core/errors.js';

/** The sidecar of a partition folder. */
export const SUMS_FILE = '_sums.crc32';
/**
 * Bytes per checksummed chunk this release writes. Large enough that a CRC call costs little beside
 * its bytes (one call per 64 KiB: ~5.5 GB/s here, against ~4.5 at 8 KiB and a sidecar 8 times the
 * size); a read of part of a chunk reads the rest of it once (then it is remembered as checked).
 * Readers take the size the sidecar names (a power of two from 1 KiB to 1 MiB), so a later release
 * may choose another.
 */
export const SUM_CHUNK = 65536;
const MAGIC = 0x4d555354; // "TSUM" read as a little-endian uint32

/** One file's checksums. */
export interface FileSums {
  readonly path: string;
  readonly bytes: number;
  /** Bytes per chunk. */
  readonly chunk: number;
  /** CRC-32 per chunk. */
  readonly crcs: Uint32Array;
  /** Chunks checked (a bit each; shared memory, set with Atomics). */
  readonly checked: Int32Array;
}

/** The checksums of one folder, by file name. */
export class FolderSums {
  constructor(
    readonly dir: string,
    readonly files: ReadonlyMap<string, FileSums>,
  ) {}
}

/** Accumulates the chunk CRCs of the files of a folder as they are written. */
export class SumsWriter {
  private readonly files: Array<{ name: string; bytes: number; first: number }> = [];
  private crcs = new Uint32Array(1024);
  private count = 0;
  private open: { name: string; bytes: number; first: number } | undefined;
  private runningCrc = 0;
  private runningBytes = 0;

  /** Starts a file whose bytes follow through `feed`, in any pieces. */
  begin(name: string): void {
    this.end();
    this.open = { name, bytes: 0, first: this.count };
    this.runningCrc = 0;
    this.runningBytes = 0;
  }

  /** The next bytes of the file begun last. */
  feed(bytes: Uint8Array): void {
    const f = this.open!;
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(SUM_CHUNK - this.runningBytes, bytes.length - at);
      this.runningCrc = crc32(bytes.subarray(at, at + n), this.runningCrc);
      this.runningBytes += n;
      at += n;
      if (this.runningBytes === SUM_CHUNK) this.push();
    }
    f.bytes += bytes.length;
  }

  /** Ends the file begun last. */
  end(): void {
    if (!this.open) return;
    if (this.runningBytes > 0) this.push();
    this.files.push(this.open);
    this.open = undefined;
  }

  /** A whole file's bytes. */
  add(name: string, bytes: Uint8Array): void {
    this.begin(name);
    this.feed(bytes);
    this.end();
  }

  private push(): void {
    if (this.count === this.crcs.length) {
      const grown = new Uint32Array(this.crcs.length * 2);
      grown.set(this.crcs);
      this.crcs = grown;
    }
    this.crcs[this.count++] = this.runningCrc;
    this.runningCrc = 0;
    this.runningBytes = 0;
  }

  /** The sidecar's bytes. */
  encode(): Uint8Array {
    this.end();
    const header = Buffer.from(
      JSON.stringify({ version: 1, algorithm: 'crc32', chunkBytes: SUM_CHUNK, files: Object.fromEntries(this.files.map((f) => [f.name, [f.bytes, f.first]])) }),
    );
    const headerEnd = 8 + Math.ceil(header.length / 4) * 4;
    const out = new Uint8Array(headerEnd + this.count * 4 + 4);
    const view = new DataView(out.buffer);
    view.setUint32(0, MAGIC, true);
    view.setUint32(4, header.length, true);
    out.set(header, 8);
    out.fill(0x20, 8 + header.length, headerEnd); // spaces: the header stays valid JSON
    for (let i = 0; i < this.count; i++) view.setUint32(headerEnd + 4 * i, this.crcs[i]!, true);
    view.setUint32(out.length - 4, crc32(out.subarray(0, out.length - 4)), true);
    return out;
  }
}

const damaged = (path: string, what: string): TickscopeError => new TickscopeError('badDatabase', `${path}: ${what}; the file is damaged (tickscope verify --db DIR lists every damaged file)`);

/** Parses a sidecar's bytes (checked against its own CRC). */
export function decodeSums(dir: string, bytes: Uint8Array): FolderSums {
  const path = join(dir, SUMS_FILE);
  if (bytes.length < 12) throw damaged(path, `${bytes.length} bytes, too short for a checksum file`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw damaged(path, 'not a checksum file (its first bytes are not "TSUM")');
  if (view.getUint32(bytes.length - 4, true) !== crc32(bytes.subarray(0, bytes.length - 4))) throw damaged(path, 'its own checksum does not match');
  const headerBytes = view.getUint32(4, true);
  const headerEnd = 8 + Math.ceil(headerBytes / 4) * 4;
  let header: { chunkBytes?: unknown; files?: Record<string, [number, number]> };
  try {
    header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 8, headerBytes).toString('utf8')) as typeof header;
  } catch (e) {
    throw damaged(path, `its header is not JSON (${(e as Error).message})`);
  }
  const chunk = header.chunkBytes;
  if (typeof chunk !== 'number' || chunk < 1024 || chunk > 1 << 20 || (chunk & (chunk - 1)) !== 0) {
    throw new TickscopeError('badDatabase', `${path}: chunks of ${String(chunk)} bytes; this release reads chunks of a power of two from 1024 to 1048576 bytes`);
  }
  const total = (bytes.length - 4 - headerEnd) / 4;
  // the CRCs as they are in the file (little-endian, as every column file is read): a view, no copy, when aligned
  const all =
    (bytes.byteOffset + headerEnd) % 4 === 0
      ? new Uint32Array(bytes.buffer, bytes.byteOffset + headerEnd, total)
      : new Uint32Array(new Uint8Array(bytes.subarray(headerEnd, headerEnd + 4 * total)).buffer);
  const files = new Map<string, FileSums>();
  for (const [name, [size, first]] of Object.entries(header.files ?? {})) {
    const n = Math.ceil(size / chunk);
    if (!(first >= 0 && first + n <= total)) throw damaged(path, `its entry for ${name} points past its end`);
    files.set(name, { path: join(dir, name), bytes: size, chunk, crcs: all.subarray(first, first + n), checked: new Int32Array(new SharedArrayBuffer(4 * Math.ceil(n / 32 + 1))) });
  }
  return new FolderSums(dir, files);
}

/** Folders whose checksums this thread knows (null: the folder has none, an older release wrote it). */
const known = new Map<string, FolderSums | null>();
/** Folders kept at most: a long-running server reads many partitions, and a folder's entry is cheap to read again. */
const KNOWN_MAX = 4096;

function remember(dir: string, sums: FolderSums | null): void {
  known.delete(dir);
  known.set(dir, sums);
  if (known.size > KNOWN_MAX) known.delete(known.keys().next().value!);
}

/**
 * Reads a folder's checksums (undefined when it has no sidecar) and remembers them for this thread's
 * reads. Called when a partition is opened: a read that starts from its files finds them.
 */
export function loadFolderSums(dir: string): FolderSums | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, SUMS_FILE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    remember(dir, null);
    return undefined;
  }
  const sums = decodeSums(dir, bytes);
  remember(dir, sums);
  return sums;
}

/** Files whose checksums another thread handed to this one (shareSums), by path. */
const sharedFiles = new Map<string, FileSums>();

/** Forgets what this thread knows of the folders under `root` (a database opened, maybe made again at the same path). */
export function forgetSums(root: string): void {
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  for (const dir of [...known.keys()]) if (dir.startsWith(prefix)) known.delete(dir);
  for (const path of [...sharedFiles.keys()]) if (path.startsWith(prefix)) sharedFiles.delete(path);
}

/** Takes checksums handed over by another thread (its checked bitmap shared): this thread's reads of the file check and mark the same chunks. */
export function adoptSums(sums: FileSums): void {
  sharedFiles.delete(sums.path);
  sharedFiles.set(sums.path, sums);
  if (sharedFiles.size > KNOWN_MAX) sharedFiles.delete(sharedFiles.keys().next().value!);
}

/** The checksums of a file, when its folder has them (loaded on first use on this thread). */
export function sumsOf(path: string): FileSums | undefined {
  const shared = sharedFiles.get(path);
  if (shared) return shared;
  const slash = path.lastIndexOf(sep);
  const dir = path.slice(0, slash);
  let folder = known.get(dir);
  if (folder === undefined) {
    try {
      folder = loadFolderSums(dir) ?? null;
    } catch (e) {
      // the folder is gone (a write replaced it while its files stay open for this read): nothing to check against
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }
  return folder?.files.get(path.slice(slash + 1));
}

/** Checks a file's size against its checksums (a file cut short at a chunk's end has no chunk that fails). */
export function checkSize(path: string, size: number): void {
  const sums = sumsOf(path);
  if (sums && sums.bytes !== size) throw damaged(path, `${size} bytes, written with ${sums.bytes}`);
}

let scratch = new Uint8Array(SUM_CHUNK);

/**
 * Checks the chunks of the file that bytes [position, position + into.length) touch, `into` holding
 * those bytes (read from `fd`); `skip(k)` true for chunks already checked elsewhere (by helper threads).
 */
export function checkRead(fd: number, path: string, into: Uint8Array, position: number, skip?: (chunk: number) => boolean): void {
  if (into.length === 0) return;
  const sums = sumsOf(path);
  if (!sums) return;
  const end = position + into.length;
  const { crcs, checked, chunk } = sums;
  const first = Math.floor(position / chunk);
  const last = Math.floor((end - 1) / chunk);
  for (let k = first; k <= last; k++) {
    if ((checked[k >> 5]! & (1 << (k & 31))) !== 0 || skip?.(k)) continue; // a plain load: at worst a chunk is checked twice
    if (k >= crcs.length) throw damaged(path, `bytes from ${k * chunk} on were not written (it was written with ${sums.bytes} bytes)`);
    const cs = k * chunk;
    const ce = Math.min(sums.bytes, cs + chunk);
    let crc: number;
    if (cs >= position && ce <= end) crc = crc32(into.subarray(cs - position, ce - position));
    else {
      // the read holds part of this chunk: read it whole
      if (scratch.length < ce - cs) scratch = new Uint8Array(chunk);
      const piece = scratch.subarray(0, ce - cs);
      for (let off = 0; off < piece.length; ) {
        const n = readSync(fd, piece, off, piece.length - off, cs + off);
        if (n === 0) throw damaged(path, `ends at byte ${cs + off}, written with ${sums.bytes} bytes`);
        off += n;
      }
      crc = crc32(piece);
    }
    if (crc !== crcs[k]) throw damaged(path, `checksum mismatch in bytes ${cs}..${ce} (chunk ${k + 1} of ${crcs.length})`);
    Atomics.or(checked, k >> 5, 1 << (k & 31));
  }
}

/** Whether every chunk bytes [position, end) touch is checked already. */
export function allChecked(sums: FileSums, position: number, end: number): boolean {
  const { checked, chunk } = sums;
  for (let k = Math.floor(position / chunk), last = Math.floor((end - 1) / chunk); k <= last; k++) {
    if ((checked[k >> 5]! & (1 << (k & 31))) === 0) return false;
  }
  return true;
}

/** A buffer of at least `bytes` this thread reuses for reads widened to whole chunks. */
export function scratchOf(bytes: number): Uint8Array {
  if (wide.length < bytes) wide = new Uint8Array(Math.max(bytes, 2 * wide.length));
  return wide.subarray(0, bytes);
}
let wide = new Uint8Array(4 * SUM_CHUNK);

/**
 * Checks the chunks lying wholly within bytes [position, position + into.length) of the file, whose
 * CRCs are `crcs` from chunk `first` (a helper thread's piece of a large read: the job carries them).
 * Returns false on a mismatch.
 */
export function checkWholeChunks(into: Uint8Array, position: number, bytes: number, chunk: number, crcs: Uint32Array, first: number): boolean {
  const end = position + into.length;
  for (let k = Math.ceil(position / chunk); k * chunk < end; k++) {
    const cs = k * chunk;
    const ce = Math.min(bytes, cs + chunk);
    if (ce > end) break;
    const c = crcs[k - first];
    if (c === undefined || crc32(into.subarray(cs - position, ce - position)) !== c) return false;
  }
  return true;
}

/** What is wrong with a file held whole in memory against its checksums, or undefined when it matches. */
export function checkBytes(bytes: Uint8Array, sums: FileSums): string | undefined {
  if (bytes.length !== sums.bytes) return `${bytes.length} bytes, written with ${sums.bytes}`;
  for (let k = 0; k < sums.crcs.length; k++) {
    const cs = k * sums.chunk;
    const ce = Math.min(bytes.length, cs + sums.chunk);
    if (crc32(bytes.subarray(cs, ce)) !== sums.crcs[k]) return `checksum mismatch in bytes ${cs}..${ce} (chunk ${k + 1} of ${sums.crcs.length})`;
  }
  return undefined;
}

/** A damaged-file error for a problem found outside a checksum (structure): the same wording. */
export function damagedFile(path: string, what: string): TickscopeError {
  return damaged(path, what);
}

/**
 * Checks a whole file against its checksums, reading it in pieces (tickscope verify); returns what is
 * wrong, or undefined when it is intact.
 */
export function checkWholeFile(path: string, sums: FileSums): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : (e as Error).message;
  }
  try {
    const size = fstatSync(fd).size;
    if (size !== sums.bytes) return `${size} bytes, written with ${sums.bytes}`;
    const { chunk } = sums;
    const piece = new Uint8Array(Math.max(chunk, 1 << 19));
    for (let at = 0; at < size; at += piece.length) {
      const n = Math.min(piece.length, size - at);
      for (let off = 0; off < n; ) {
        const got = readSync(fd, piece, off, n - off, at + off);
        if (got === 0) return `ends at byte ${at + off}`;
        off += got;
      }
      for (let cs = 0; cs < n; cs += chunk) {
        const k = (at + cs) / chunk;
        if (crc32(piece.subarray(cs, Math.min(n, cs + chunk))) !== sums.crcs[k]) {
          return `checksum mismatch in bytes ${at + cs}..${Math.min(size, at + cs + chunk)} (chunk ${k + 1} of ${sums.crcs.length})`;
        }
      }
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}
