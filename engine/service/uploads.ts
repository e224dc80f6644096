/**
 * Files the browser sends for Import… (its file picker or drop zone: the page cannot name a path on
 * this machine), each saved under one upload folder of the user data folder at its relative path
 * (`aapl/20131008_trade.csv`, so a mapping's {dir} and {name} read as from the user's own folder).
 * The path is checked before anything is written: relative, no `..`, a known extension; a file past
 * MAX_UPLOAD_BYTES is refused and removed.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TickscopeError } from '../core/errors.js';
import { importFormat } from '../storage/import-preview.js';

/** The largest file one upload takes (a day of one symbol's ticks is well under it). */
export const MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;

/** Where an uploaded file went: its folder (what the import reads) and the file. */
export interface Upload {
  /** The upload folder's id: sent with the next file to put it in the same folder. */
  readonly upload: string;
  readonly folder: string;
  readonly path: string;
  readonly bytes: number;
}

const UPLOAD_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** A relative path checked: forward slashes, no empty, `.` or `..` part, not absolute, a known extension; undefined-free. */
export function checkUploadPath(x: unknown): string {
  const bad = (msg: string): never => {
    throw new TickscopeError('badRequest', `X-Tickscope-Path: ${msg}`);
  };
  if (typeof x !== 'string' || x === '') return bad('required: the file\'s path relative to the folder picked or dropped (aapl/20131008_trade.csv)');
  let path: string;
  try {
    path = decodeURIComponent(x);
  } catch {
    return bad(`${JSON.stringify(x)} is not URI-encoded text`);
  }
  if (path.length > 1024) bad(`${path.length} characters; at most 1024`);
  if (path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path)) bad(`${JSON.stringify(path)} is absolute; expected a path relative to the folder picked (aapl/20131008_trade.csv)`);
  if ([...path].some((ch) => ch.charCodeAt(0) < 32)) bad(`${JSON.stringify(path)} holds control characters`);
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) bad(`${JSON.stringify(path)}: expected names separated by /, without empty, . or .. parts`);
  if (!importFormat(path)) bad(`${JSON.stringify(path)} is not a file an import reads; expected a name ending .csv, .parquet, .arrow, .arrows, .ipc or .feather`);
  return path;
}

/** Saves one uploaded file (its bytes streamed to disk) under `root`/<upload id>/<relative path>. */
export async function saveUpload(root: string, relPath: unknown, upload: unknown, body: Readable): Promise<Upload> {
  const path = checkUploadPath(relPath);
  let id: string;
  if (upload === undefined || upload === '') id = randomBytes(12).toString('base64url');
  else if (typeof upload !== 'string' || !UPLOAD_ID.test(upload) || !existsSync(join(root, upload))) {
    throw new TickscopeError('badRequest', `X-Tickscope-Upload: ${JSON.stringify(upload)} is not an upload folder of this app; leave it out to start one`);
  } else id = upload;
  const folder = join(root, id);
  const target = join(folder, ...path.split('/'));
  if (existsSync(target)) throw new TickscopeError('badRequest', `X-Tickscope-Path: ${JSON.stringify(path)} was uploaded to this folder already`);
  mkdirSync(dirname(target), { recursive: true });
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > MAX_UPLOAD_BYTES) done(new TickscopeError('tooLarge', `${path}: larger than ${MAX_UPLOAD_BYTES} bytes, the most one upload takes; import it by its path on this machine instead`));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(body, count, createWriteStream(target));
  } catch (e) {
    rmSync(target, { force: true });
    throw e;
  }
  return { upload: id, folder, path: target, bytes };
}
