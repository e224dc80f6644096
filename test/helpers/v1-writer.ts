/**
 * Writes a storage-format-1 copy of a database, byte for byte as releases before format 2 wrote it
 * (JSON symbol dictionaries, no time order, manifest format 1), to test `tickscope migrate` and to
 * compare the answers of the two formats.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Column } from '../../engine/core/column.js';
import { dictStrings } from '../../engine/core/dict.js';
import type { Database, Partition } from '../../engine/storage/database.js';

const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

function int64Of(values: Float64Array): BigInt64Array {
  return BigInt64Array.from(values, (v) => (v !== v ? -9223372036854775808n : BigInt(v)));
}

function filesOf(name: string, c: Column): Array<[string, Uint8Array | string]> {
  switch (c.type) {
    case 'float':
      return [[`${name}.f64`, bytesOf(c.data)]];
    case 'long':
      return [[`${name}.i64`, bytesOf(c.data)]];
    case 'int':
      return [[`${name}.i32`, bytesOf(c.data)]];
    case 'timestamp':
    case 'timespan':
      return [[`${name}.i64`, bytesOf(c.data)]];
    case 'date':
      return [[`${name}.i32`, bytesOf(c.data)]];
    case 'boolean':
      return [[`${name}.u8`, bytesOf(c.data)]];
    case 'symbol':
      return [
        [`${name}.i32`, bytesOf(c.codes)],
        [`${name}.dict.json`, JSON.stringify(dictStrings(c.dict))],
      ];
    case 'string': {
      const parts = c.values.map((s) => Buffer.from(s));
      const offsets = new Int32Array(parts.length + 1);
      parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
      return [
        [`${name}.offsets.i32`, bytesOf(offsets)],
        [`${name}.utf8`, Buffer.concat(parts)],
      ];
    }
    case 'float[]':
      return [
        [`${name}.offsets.i32`, bytesOf(c.offsets)],
        [`${name}.f64`, bytesOf(c.values)],
      ];
    case 'long[]':
      return [
        [`${name}.offsets.i32`, bytesOf(c.offsets)],
        [`${name}.i64`, bytesOf(int64Of(c.values))],
      ];
  }
}

/** Writes `db` as a format-1 database in the (new) folder `dir`. */
export function writeV1Copy(db: Database, dir: string): void {
  mkdirSync(join(dir, 'data'), { recursive: true });
  copyFileSync(join(db.dir, 'schema.json'), join(dir, 'schema.json'));
  copyFileSync(join(db.dir, 'config.json'), join(dir, 'config.json'));
  const tables: Record<string, { partitions?: Record<string, string>; reference?: string }> = {};
  const write = (table: string, name: string, p: Partition): string => {
    const rel = join('data', table, `${name}.g1`);
    const folder = join(dir, rel);
    mkdirSync(folder, { recursive: true });
    const t = db.table(table);
    for (const def of t.columns) for (const [file, bytes] of filesOf(def.name, p.column(def.name))) writeFileSync(join(folder, file), bytes);
    const idRanges = p.idRanges.size > 0 ? Object.fromEntries(p.idRanges) : undefined;
    writeFileSync(join(folder, '_meta.json'), JSON.stringify({ format: 1, rows: p.rows, columns: t.columns, ...(idRanges ? { idRanges } : {}) }));
    return rel;
  };
  for (const [name, t] of db.schema.tables) {
    if (t.kind === 'reference') {
      const p = db.reference(name);
      if (p) tables[name] = { reference: write(name, 'ref', p) };
      continue;
    }
    for (const key of db.partitionKeys(name)) ((tables[name] ??= {}).partitions ??= {})[key] = write(name, key, db.partition(name, key)!);
  }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ format: 1, generation: 1, tables }));
}
