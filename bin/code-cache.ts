/**
 * V8's code cache for the large CommonJS bundles a `tickscope` command loads (the command itself,
 * ~700 kB, and the vendored apache-arrow, ~500 kB): compiling them from source takes ~18 and ~10 ms of
 * every run, and a cache of the code the last run compiled takes a few. Node 20 has no compile cache
 * of its own (module.enableCompileCache is Node 22), so these files are compiled here through
 * vm.Script with the cached data, and the cache is written when a run found none it could use.
 *
 * A cache belongs to one build of one file: its name holds the file's size and modification time (a
 * build removes the folders, so old ones go with it), and V8 refuses data made by another V8 or with
 * other flags (the file is then compiled from source, and the cache written anew). Nothing here can
 * make a command fail: a cache that cannot be read or written is only slower.
 */
import { accessSync, constants, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';

/**
 * A cache file: this magic, the CRC-32 of V8's data, the CRC-32 of the source it was made from, then
 * V8's data. V8 checks its data's version, flags and the source's length, not the source nor its own
 * bytes: a damaged file, or one made from another file of the same size and time (copied with its
 * time kept), is caught here and never given to V8.
 */
const MAGIC = 0x32435354; // "TSC2"
const HEADER = 12;

/** How a file was compiled: from source (no cache, or one V8 refused) or from its cache. */
export type CacheStatus = 'none' | 'rejected' | 'accepted';

export interface CachedLoad {
  readonly file: string;
  readonly cacheFile: string;
  readonly status: CacheStatus;
  readonly script: vm.Script;
  /** CRC-32 of the file's bytes. */
  readonly sourceCrc: number;
}

type Loader = (module: NodeJS.Module, filename: string) => void;
type Extensions = Record<string, Loader>;

/** Module's loaders by extension (public since Node 0.x, documented as deprecated, still how .cjs loads). */
const extensions = (Module as unknown as { _extensions: Extensions })._extensions;

export class CodeCache {
  /** The files compiled through the cache so far, in load order. */
  readonly loads: CachedLoad[] = [];
  private readonly files: Set<string>;
  /** The .cjs loader install replaced (undefined: there was none of its own). */
  private replaced: { readonly loader: Loader | undefined } | undefined;

  /**
   * `files`: the CommonJS files to compile with a cache; `dir`: where caches go (default: beside each
   * file).
   */
  constructor(
    files: readonly string[],
    private readonly dir?: string,
  ) {
    this.files = new Set(files.map((f) => resolve(f)));
  }

  /** Loads the listed files through the cache from now on (other .cjs files load as before). */
  install(): void {
    this.replaced = { loader: extensions['.cjs'] };
    // Node 20 has no .cjs loader of its own: such files load through the .js one
    const plain = extensions['.cjs'] ?? extensions['.js']!;
    extensions['.cjs'] = (module, filename) => (this.files.has(filename) ? this.compile(module, filename) : plain(module, filename));
  }

  /** Puts back the loaders as install found them. */
  uninstall(): void {
    if (!this.replaced) return;
    if (this.replaced.loader) extensions['.cjs'] = this.replaced.loader;
    else delete extensions['.cjs'];
    this.replaced = undefined;
  }

  /** Writes the cache of every file that had none V8 accepted (atomically; errors ignored). */
  save(): void {
    for (const load of this.loads) {
      if (load.status === 'accepted') continue;
      const tmp = `${load.cacheFile}.${process.pid}.tmp`;
      try {
        mkdirSync(dirname(load.cacheFile), { recursive: true });
        // a folder it cannot write (a read-only install): no cache made only to be thrown away
        accessSync(dirname(load.cacheFile), constants.W_OK);
        const data = load.script.createCachedData();
        const header = Buffer.alloc(HEADER);
        header.writeUInt32LE(MAGIC, 0);
        header.writeUInt32LE(crc32(data), 4);
        header.writeUInt32LE(load.sourceCrc, 8);
        writeFileSync(tmp, Buffer.concat([header, data]));
        renameSync(tmp, load.cacheFile);
      } catch {
        // the next run compiles from source, as without a cache
        try {
          rmSync(tmp, { force: true });
        } catch {
          // no folder to leave it in either
        }
      }
    }
  }

  private cacheFileOf(filename: string): string {
    const st = statSync(filename);
    const name = `${basename(filename)}.${st.size}-${Math.floor(st.mtimeMs)}.v8cache`;
    return join(this.dir ?? dirname(filename), name);
  }

  /** What Module's .cjs loader does (read, wrap, run with the module's require), compiled with the cache. */
  private compile(module: NodeJS.Module, filename: string): void {
    const bytes = readFileSync(filename);
    const source = bytes.toString('utf8');
    const sourceCrc = crc32(bytes);
    const cacheFile = this.cacheFileOf(filename);
    const cached = readCache(cacheFile, sourceCrc);
    const cachedData = cached && cached !== 'damaged' ? cached : undefined;
    // no dynamic import() in these files (the build checks): Node 20 loses a script's import() loader
    // when it is compiled from cached data
    const script = new vm.Script(Module.wrap(source), { filename, cachedData });
    const status: CacheStatus = cached === 'damaged' || (cachedData && script.cachedDataRejected) ? 'rejected' : cachedData ? 'accepted' : 'none';
    this.loads.push({ file: filename, cacheFile, status, script, sourceCrc });
    const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: NodeJS.Module, filename: string, dirname: string) => void;
    const require = Module.createRequire(filename);
    wrapper.call(module.exports, module.exports, require, module, filename, dirname(filename));
  }
}

/** A cache file's V8 data; undefined when there is none, 'damaged' when a check fails (its bytes, its source). */
function readCache(path: string, sourceCrc: number): Buffer | 'damaged' | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  if (bytes.length <= HEADER || bytes.readUInt32LE(0) !== MAGIC || bytes.readUInt32LE(8) !== sourceCrc) return 'damaged';
  const data = bytes.subarray(HEADER);
  return crc32(data) === bytes.readUInt32LE(4) ? data : 'damaged';
}
