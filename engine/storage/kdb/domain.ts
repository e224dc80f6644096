/**
 * Enumeration domains (docs/kdb-format.md 1.2): the `sym` file (or any domain a column names) at a
 * database's root, a serialized symbol vector whose names run to the end of the file. Its header
 * count is never trusted (q leaves it 0 or stale): the names are counted by their terminating 0s.
 *
 * A domain is read once, when a column first needs it, in one pass that records where each name
 * starts; names are decoded only as queries ask for them (core/dict.ts Utf8Dict). Every column
 * enumerated against the domain shares its one Dict, so codes compare within it. The Dict holds one
 * entry more than the domain: "", the null symbol, which the null enumeration index reads as.
 */
import { join } from 'node:path';
import { type Dict, Utf8Dict } from '../../core/dict.js';
import { openKdbFile } from './file.js';
import { badFile, hexOf, isDomainName, type KdbReadOptions } from './io.js';

/** The names of a serialized symbol vector's image (`ff 01 0b attr count`, then names to the end), as offsets into packed bytes. */
export function symbolNames(path: string, image: Uint8Array): { offsets: Int32Array; data: Uint8Array; headerCount: number } {
  if (image.length < 8 || image[0] !== 0xff || image[1] !== 0x01 || image[2] !== 11) {
    throw badFile(path, `starts ${hexOf(image)}; expected a serialized symbol vector (ff 01 0b)`);
  }
  const headerCount = new DataView(image.buffer, image.byteOffset, image.byteLength).getInt32(4, true);
  if (image.length > 8 && image[image.length - 1] !== 0) throw badFile(path, `its last name has no terminating 0 (truncated?): names run to the end of the file, each ending in 0`);
  let names = 0;
  for (let i = 8; i < image.length; i++) if (image[i] === 0) names++;
  // the names packed without their 0s, and where each starts (one entry more: the null symbol), in
  // shared memory: every symbol column of a result carries the domain's dictionary, and a result
  // handed from a query worker to another thread (Executor.call, engine/parallel/transfer.ts) shares a
  // dictionary in shared memory by reference but copies one in plain memory, once per column (a `sym`
  // holding a database's unique executionIDs, 10M names, made 8 copies of 250 MB per query)
  const offsets = new Int32Array(new SharedArrayBuffer(4 * (names + 2)));
  const data = new Uint8Array(new SharedArrayBuffer(image.length - 8 - names));
  let k = 0;
  let o = 0;
  for (let i = 8; i < image.length; i++) {
    const c = image[i]!;
    if (c === 0) offsets[++k] = o;
    else data[o++] = c;
  }
  offsets[names + 1] = o;
  return { offsets, data, headerCount };
}

/** One enumeration domain, read on first use. */
export class KdbDomain {
  private loaded: { dict: Utf8Dict; names: number; headerCount: number } | undefined;

  constructor(
    /** The domain file. */
    readonly path: string,
    /** The name columns give it (`sym`). */
    readonly name: string,
    private readonly options: KdbReadOptions = {},
  ) {}

  private load(): NonNullable<KdbDomain['loaded']> {
    if (!this.loaded) {
      const file = openKdbFile(this.path, this.options);
      const image = file.read(0, file.length);
      const { offsets, data, headerCount } = symbolNames(this.path, image);
      const names = offsets.length - 2;
      this.loaded = { dict: new Utf8Dict(offsets, data, false, false), names, headerCount };
    }
    return this.loaded;
  }

  /** How many names the domain holds (counted in the file, not its header). */
  get names(): number {
    return this.load().names;
  }

  /** The count the file's header states (0 or stale in some files; informational only). */
  get headerCount(): number {
    return this.load().headerCount;
  }

  /** The dictionary every column of this domain shares: code i is name i; code `names` is "" (the null enumeration). */
  get dict(): Dict {
    return this.load().dict;
  }

  /** The code of the null enumeration index (the null symbol). */
  get nullCode(): number {
    return this.load().names;
  }
}

/** The domains of one database root: each domain file read once, shared by every column naming it. */
export class Domains {
  private readonly byName = new Map<string, KdbDomain>();

  constructor(
    readonly root: string,
    private readonly options: KdbReadOptions = {},
  ) {}

  /** The domain `name` (a file at the root); a name that is not one file name is an error naming `from`. */
  get(name: string, from = this.root): KdbDomain {
    if (!isDomainName(name)) throw badFile(from, `names the enumeration domain ${JSON.stringify(name)}; expected a file name at the database's root (e.g. sym)`);
    let d = this.byName.get(name);
    if (!d) this.byName.set(name, (d = new KdbDomain(join(this.root, name), name, this.options)));
    return d;
  }
}
