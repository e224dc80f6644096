/**
 * What every reader of kdb+ files shares: the image interface (a file's bytes as q reads them), the
 * read options, positioned reads that check the file is still the one opened, and the one error a
 * damaged file answers (badDatabase, naming the file and what was expected).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { environmentError, TickscopeError } from '../../core/errors.js';
import type { BlockCache } from './block-cache.js';

/** A file's image: its bytes as q reads them (a compressed file's decompressed). */
export interface KdbBytes {
  readonly path: string;
  /** The image's length in bytes (a compressed file's uncompressed length). */
  readonly length: number;
  /** How the file is compressed, or undefined for a plain file. */
  readonly compression: CompressionInfo | undefined;
  /**
   * Bytes [start, end) of the image. The array may be shared with a cache (a block's own bytes):
   * callers read it, never write it.
   */
  read(start: number, end: number): Uint8Array;
}

/** A compressed file's trailer, as read (docs/kdb-format.md 5.1). */
export interface CompressionInfo {
  /** The trailer's first word (2 or 3 in files seen; its meaning is not known). */
  readonly format: number;
  /** 0 none, 1 q IPC, 2 zlib, 3 snappy, 4 lz4hc, 5 zstd. */
  readonly algorithm: number;
  readonly level: number;
  /** Logical block size in bytes (2^12 ... 2^20). */
  readonly blockSize: number;
  readonly blocks: number;
  /** Bytes stored in the file per block (compressed, or raw where the block's flag is 0). */
  readonly storedSizes: readonly number[];
  /** Each block's algorithm: 0 stored raw, else the file's. */
  readonly blockAlgorithms: readonly number[];
}

/** How files are opened: the decompressed-block cache and a hook called for each block decompressed. */
export interface KdbReadOptions {
  /** The cache of decompressed blocks (a small process-wide one unless given). */
  readonly cache?: BlockCache;
  /** Called once per block read from disk and decompressed (a cache miss; raw blocks too): tests count them. */
  readonly onDecompress?: (path: string, block: number) => void;
}

/** A file's size and modification time when opened: reads check the size again. */
export interface FileIdentity {
  readonly size: number;
  readonly mtimeMs: number;
}

/** The error for a damaged or unreadable kdb+ file: names the file and what was expected. */
export function badFile(path: string, why: string): TickscopeError {
  return new TickscopeError('badDatabase', `kdb+ file ${path}: ${why}`);
}

/** The first bytes of a file in hex, for errors (`fe 20 0a 00`). */
export function hexOf(b: Uint8Array, n = 8): string {
  return Array.from(b.subarray(0, n), (x) => x.toString(16).padStart(2, '0')).join(' ');
}

/** A file system error while reading `path`: the environment's own (permission, open files), else badDatabase naming it. */
export function fileError(e: unknown, path: string): unknown {
  if (e instanceof TickscopeError) return e;
  const env = environmentError(e, 'reading a kdb+ database');
  if (env) return env;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return badFile(path, 'no such file');
  if (code === 'EISDIR') return badFile(path, 'is a folder; expected a kdb+ file');
  return e;
}

/** Opens `path` read-only, runs `fn` on the descriptor, closes it; checks the file still has `size` bytes. */
export function withFile<T>(path: string, identity: FileIdentity | undefined, fn: (fd: number) => T): T {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw fileError(e, path);
  }
  try {
    if (identity) {
      const now = fstatSync(fd).size;
      if (now !== identity.size) throw badFile(path, `changed while open: ${identity.size} bytes when opened, ${now} now`);
    }
    return fn(fd);
  } catch (e) {
    throw fileError(e, path);
  } finally {
    closeSync(fd);
  }
}

/** Reads `into.length` bytes at `position` through `fd`, all of them (a short file is damage). */
export function readFully(fd: number, into: Uint8Array, position: number, path: string): void {
  for (let off = 0; off < into.length; ) {
    const n = readSync(fd, into, off, into.length - off, position + off);
    if (n === 0) throw badFile(path, `ends at byte ${position + off}; expected ${into.length - off} more bytes`);
    off += n;
  }
}

/** Checks [start, end) lies within an image of `length` bytes. */
export function checkRange(path: string, start: number, end: number, length: number): void {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end > length) {
    throw badFile(path, `bytes [${start}, ${end}) asked of an image of ${length} bytes`);
  }
}


/** True for a domain name that is one file name at the root (never a path). */
export function isDomainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && /^[\x21-\x7e]+$/.test(name) && !/[/\\]/.test(name);
}
