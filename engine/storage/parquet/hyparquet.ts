/**
 * The parts of hyparquet the Parquet reader uses: its footer and schema parsers and its page decoders
 * (every encoding, V1 and V2 data pages), with hyparquet-compressors' decompressors.
 */
import { createRequire } from 'node:module';
import type { Compressors } from 'hyparquet';

type ParquetMetadataFn = typeof import('hyparquet/src/metadata.js').parquetMetadata;
type ParquetSchemaFn = typeof import('hyparquet/src/metadata.js').parquetSchema;
type ParquetHeaderFn = typeof import('hyparquet/src/column.js').parquetHeader;
type DataPageModule = typeof import('hyparquet/src/datapage.js');
type ReadPlainFn = typeof import('hyparquet/src/plain.js').readPlain;
export type ColumnDecoder = Parameters<DataPageModule['readDataPage']>[2];

export interface Hyparquet {
  readonly parquetMetadata: ParquetMetadataFn;
  readonly parquetSchema: ParquetSchemaFn;
  readonly parquetHeader: ParquetHeaderFn;
  readonly decompressPage: DataPageModule['decompressPage'];
  readonly readDataPage: DataPageModule['readDataPage'];
  readonly readDataPageV2: DataPageModule['readDataPageV2'];
  readonly readPlain: ReadPlainFn;
  readonly parsers: ColumnDecoder['parsers'];
  readonly compressors: Compressors;
}

let loaded: Hyparquet | undefined;

/**
 * hyparquet's modules, loaded on the first Parquet import: they are ES modules, which cost ~50 ms to
 * load with the decompressors, and storage/import.ts is loaded by every `tickscope serve` (remote
 * connections read Arrow through it), so they must not load with it. The page-level modules are
 * the package's exported `src/*.js` paths (package.json pins the version).
 */
export function hyparquet(): Hyparquet {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const metadata = require('hyparquet/src/metadata.js') as typeof import('hyparquet/src/metadata.js');
    const column = require('hyparquet/src/column.js') as typeof import('hyparquet/src/column.js');
    const datapage = require('hyparquet/src/datapage.js') as DataPageModule;
    const plain = require('hyparquet/src/plain.js') as typeof import('hyparquet/src/plain.js');
    const convert = require('hyparquet/src/convert.js') as typeof import('hyparquet/src/convert.js');
    const { compressors } = require('hyparquet-compressors') as typeof import('hyparquet-compressors');
    loaded = {
      parquetMetadata: metadata.parquetMetadata,
      parquetSchema: metadata.parquetSchema,
      parquetHeader: column.parquetHeader,
      decompressPage: datapage.decompressPage,
      readDataPage: datapage.readDataPage,
      readDataPageV2: datapage.readDataPageV2,
      readPlain: plain.readPlain,
      parsers: convert.DEFAULT_PARSERS,
      compressors,
    };
  }
  return loaded;
}
