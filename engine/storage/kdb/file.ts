/**
 * A kdb+ column or object file opened for reading (docs/kdb-format.md): its image, the bytes q maps
 * or deserializes, read by range. A plain file's image is its own bytes; a `kxzipped` file's is its
 * decompressed bytes, read block by block (compressed.ts); an encrypted file (`kxzippEd`) is refused.
 * What the image holds is told by its first bytes (header.ts).
 *
 * Reads are synchronous positioned reads (as the native store's), each opening the file and checking
 * that it still has the size it had when opened: a kdb+ file replaced under a reader is an error
 * naming it, never bytes of two versions.
 */
import { statSync } from 'node:fs';
import { openCompressed } from './compressed.js';
import { badFile, checkRange, fileError, type FileIdentity, type KdbBytes, type KdbReadOptions, readFully, withFile } from './io.js';

const KXZIPPED = Buffer.from('kxzipped', 'latin1');
const KXZIPPED_ENCRYPTED = Buffer.from('kxzippEd', 'latin1');

/** A plain (uncompressed) file: its image is its bytes. */
class PlainFile implements KdbBytes {
  readonly compression = undefined;

  constructor(
    readonly path: string,
    private readonly identity: FileIdentity,
  ) {}

  get length(): number {
    return this.identity.size;
  }

  read(start: number, end: number): Uint8Array {
    checkRange(this.path, start, end, this.length);
    const out = new Uint8Array(end - start);
    if (out.length > 0) withFile(this.path, this.identity, (fd) => readFully(fd, out, start, this.path));
    return out;
  }
}

/**
 * Opens a kdb+ file: a plain one as it is, a `kxzipped` one through its trailer (nothing decompressed
 * yet); an encrypted one (`kxzippEd`) is an error naming it.
 */
export function openKdbFile(path: string, options: KdbReadOptions = {}): KdbBytes {
  let identity: FileIdentity;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw badFile(path, 'is a folder; expected a kdb+ file');
    identity = { size: st.size, mtimeMs: st.mtimeMs };
  } catch (e) {
    throw fileError(e, path);
  }
  if (identity.size < 2) throw badFile(path, `${identity.size} bytes; a kdb+ file has at least a 2-byte header`);
  const head = new Uint8Array(Math.min(8, identity.size));
  withFile(path, identity, (fd) => readFully(fd, head, 0, path));
  if (head.length === 8 && Buffer.compare(head, KXZIPPED_ENCRYPTED) === 0) {
    throw badFile(path, 'is encrypted (kxzippEd, kdb+ data at rest encryption); Tickscope does not read encrypted kdb+ files');
  }
  if (head.length === 8 && Buffer.compare(head, KXZIPPED) === 0) return openCompressed(path, identity, options);
  return new PlainFile(path, identity);
}

/** True when the image's first 8 bytes are a compression or encryption marker (never valid inside an image). */
export function isCompressionMagic(head: Uint8Array): boolean {
  if (head.length < 8) return false;
  const h = head.subarray(0, 8);
  return Buffer.compare(h, KXZIPPED) === 0 || Buffer.compare(h, KXZIPPED_ENCRYPTED) === 0;
}
