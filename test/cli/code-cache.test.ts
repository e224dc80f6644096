import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CodeCache } from '../../bin/code-cache.js';
import { tempDir } from '../helpers/db.js';

const nodeRequire = createRequire(import.meta.url);
let installed: CodeCache | null = null;

afterEach(() => installed?.uninstall());

const source = (value: number): string =>
  [
    "const { join } = require('node:path');",
    `module.exports = { value: ${value}, twice: (x) => 2 * x, here: join(__dirname, 'x'), file: __filename, self: module.exports === exports };`,
    '',
  ].join('\n');

const BUILT = new Date('2026-01-02T03:04:05Z');

/**
 * Writes `text` as bundle.cjs of a new folder (same name and time each time: one build) and loads it
 * through a new CodeCache keeping its caches in `caches`. A new folder each time: V8 also keeps
 * compiled scripts in memory by source and file name, which would hide what the cache did.
 */
function load(root: string, caches: string, text: string): { exports: Record<string, unknown>; cache: CodeCache } {
  const dir = join(root, `copy-${readdirSync(root).length}`);
  mkdirSync(dir);
  const file = join(dir, 'bundle.cjs');
  writeFileSync(file, text);
  utimesSync(file, BUILT, BUILT);
  installed?.uninstall();
  const cache = (installed = new CodeCache([file], caches));
  cache.install();
  return { exports: nodeRequire(file) as Record<string, unknown>, cache };
}
const statuses = (c: CodeCache): string[] => c.loads.map((l) => l.status);

describe('code cache of the command bundles', () => {
  it('compiles from the cache a run wrote, never with another build’s or a damaged one, and runs as a plain require', () => {
    const root = tempDir();
    const caches = join(root, 'caches');
    mkdirSync(caches);

    const first = load(root, caches, source(41));
    // the module sees what Node's loader gives it
    expect(first.exports).toMatchObject({ value: 41, here: join(first.cache.loads[0]!.file, '..', 'x'), file: first.cache.loads[0]!.file, self: true });
    expect((first.exports['twice'] as (x: number) => number)(21)).toBe(42);
    expect(statuses(first.cache)).toEqual(['none']);
    first.cache.save();
    expect(readdirSync(caches)).toHaveLength(1);

    const second = load(root, caches, source(41));
    expect(statuses(second.cache)).toEqual(['accepted']);
    expect(second.exports['value']).toBe(41);

    // another file of the same size and time (copied with its time kept): its cache is not used
    const sameSize = load(root, caches, source(42));
    expect(statuses(sameSize.cache)).toEqual(['rejected']);
    expect(sameSize.exports['value']).toBe(42);

    // another build (another size): another cache, and the new code runs
    const rebuilt = load(root, caches, source(4200));
    expect(statuses(rebuilt.cache)).toEqual(['none']);
    expect(rebuilt.exports['value']).toBe(4200);
    rebuilt.cache.save();
    expect(readdirSync(caches)).toHaveLength(2); // nothing left behind but the caches

    // a damaged cache is never used: compiled from source, and the cache written anew
    const cacheFile = rebuilt.cache.loads[0]!.cacheFile;
    writeFileSync(cacheFile, Buffer.alloc(4096, 7));
    const damaged = load(root, caches, source(4200));
    expect(statuses(damaged.cache)).toEqual(['rejected']);
    expect(damaged.exports['value']).toBe(4200);
    damaged.cache.save();
    expect(statuses(load(root, caches, source(4200)).cache)).toEqual(['accepted']);
  });

  it('leaves other files to the plain loader, and a cache it cannot write costs nothing but speed', () => {
    const root = tempDir();
    const other = join(root, 'other.cjs');
    writeFileSync(other, source(2));
    // the cache folder would be under a file: it cannot be made
    writeFileSync(join(root, 'file'), '');
    const { cache, exports } = load(root, join(root, 'file', 'caches'), source(1));
    expect(exports['value']).toBe(1);
    expect((nodeRequire(other) as { value: number }).value).toBe(2);
    expect(cache.loads).toHaveLength(1);
    expect(() => cache.save()).not.toThrow();
    expect(existsSync(join(root, 'file', 'caches'))).toBe(false);
  });
});
