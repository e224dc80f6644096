/**
 * Helpers of the kdb+ reader's tests: the fixture folders q wrote, scratch copies to damage, and a
 * `kxzipped` container (docs/kdb-format.md 5.1) around blocks some codec made, for the algorithms no
 * fixture has (the container is ours; the codecs' bytes are the lz4 and zstd tools', hysnappy's).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { TickscopeError } from '../../../../engine/core/errors.js';

export const TORQ = join(process.cwd(), 'test/fixtures/kdb-torq-hdb/hdb');
export const ADV = join(process.cwd(), 'test/fixtures/kdb-advancedkdb/hdb');
export const TORQ_DAY = join(TORQ, '2015.01.07');

/** A scratch folder, removed by the returned function. */
export function scratch(): { dir: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'kdb-test-'));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Copies fixture files (paths relative to `root`) under `dir`, keeping their relative paths; answers the copies' paths. */
export function copyFixture(root: string, dir: string, ...files: string[]): string[] {
  return files.map((f) => {
    const to = join(dir, f);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(root, f), to);
    return to;
  });
}

/** Rewrites a file through `edit` (given its bytes, answers the new bytes). */
export function damage(path: string, edit: (b: Buffer) => Uint8Array): void {
  writeFileSync(path, edit(Buffer.from(readFileSync(path))));
}

/** The kxzipped container (docs/kdb-format.md 5.1) is the writer's: bench/kdb-writer.ts. */
export { kxzip, kxzipWith, type StoredBlock } from '../../../../bench/kdb-writer.js';

/** A plain vector file's bytes: `fe 20 t attr`, 4 zero bytes, the count, the items. */
export function vectorFile(type: number, count: number, items: Uint8Array, attr = 0): Buffer {
  const h = Buffer.alloc(16);
  h[0] = 0xfe;
  h[1] = 0x20;
  h[2] = type;
  h[3] = attr;
  h.writeBigInt64LE(BigInt(count), 8);
  return Buffer.concat([h, items]);
}

/** int64 items' bytes. */
export function longs(values: readonly number[]): Buffer {
  const b = Buffer.alloc(8 * values.length);
  values.forEach((v, i) => b.writeBigInt64LE(BigInt(v), 8 * i));
  return b;
}

/** Asserts `fn` throws a TickscopeError of `kind` whose message matches every part (the file it names, what was expected). */
export function expectError(fn: () => unknown, kind: string, ...parts: Array<string | RegExp>): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err, `expected a ${kind} error matching ${parts.join(', ')}`).toBeInstanceOf(TickscopeError);
  expect((err as TickscopeError).kind).toBe(kind);
  for (const p of parts) expect((err as Error).message).toMatch(typeof p === 'string' ? new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : p);
}

/** A damaged or malformed file: a badDatabase error whose message matches every part. */
export const expectBad = (fn: () => unknown, ...parts: Array<string | RegExp>): void => expectError(fn, 'badDatabase', ...parts);

/** q's serialization of a qPython vector expression (test/fixtures/q-ipc-vectors), without the message header. */
export function qBytes(expression: string): Buffer {
  const lines = readFileSync(join(process.cwd(), 'test/fixtures/q-ipc-vectors/QExpressions3.out'), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.trim() === expression);
  if (i < 0) throw new Error(`no vector ${expression}`);
  return Buffer.from(lines[i + 1]!.trim(), 'hex');
}

/** A file as `set` writes an object: ff 01, then the object. */
export const setFile = (object: Uint8Array): Buffer => Buffer.concat([Buffer.from([0xff, 0x01]), object]);
