/**
 * A column chunk's pages decoded, in order: its dictionary page (converted once, by the column's
 * own conversion) and its data pages, each handed on as definition and repetition levels with the
 * non-null values. The chunk's and each page's byte ranges are checked against the file and the
 * chunk before they are read: what does not fit is damage, never a read past the end.
 */
import type { ColumnMetaData, DecodedArray, SchemaTree } from 'hyparquet';
import type { ColumnDecoder, Hyparquet } from './hyparquet.js';

/** One decoded data page: `n` level entries (one per row in a flat column), and the non-null values. */
export interface Page {
  readonly n: number;
  /** Definition levels; empty or undefined when every entry is defined. */
  readonly def: ArrayLike<number> | undefined;
  readonly rep: ArrayLike<number>;
  /** The non-null values, or their dictionary indices when `indexed`. */
  readonly values: DecodedArray;
  readonly indexed: boolean;
}

/** What readChunk needs of a column: its leaf, the schema's nodes down to it, and how its values convert. */
export interface ChunkColumn<S> {
  readonly leaf: SchemaTree;
  readonly schemaPath: SchemaTree[];
  readonly sink: { convert(values: DecodedArray): S };
}

/**
 * Decodes one column chunk: its dictionary page (converted once) and data pages, in order. Stops
 * after the chunk's declared value count; a chunk that ends before it is damaged.
 */
export function readChunk<S>(h: Hyparquet, buffer: ArrayBuffer, meta: ColumnMetaData, plan: ChunkColumn<S>, onPage: (page: Page, src: S) => void): void {
  // Some writers record a dictionary offset of 0 for "none" (hyparquet reads them the same way).
  const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
  const size = Number(meta.total_compressed_size);
  if (!(start >= 4 && size >= 0 && start + size <= buffer.byteLength)) throw new Error(`its bytes ${start}..${start + size} lie outside the file's ${buffer.byteLength}`);
  const reader = { view: new DataView(buffer, start, size), offset: 0 };
  const decoder: ColumnDecoder = {
    pathInSchema: meta.path_in_schema,
    type: meta.type,
    element: plan.leaf.element,
    schemaPath: plan.schemaPath,
    codec: meta.codec,
    parsers: h.parsers,
    compressors: h.compressors,
  };
  const total = Number(meta.num_values);
  let seen = 0;
  let dictionary: S | undefined;
  while (seen < total) {
    if (reader.offset >= size) throw new Error(`the column chunk ends after ${seen} of its ${total} values`);
    const header = h.parquetHeader(reader);
    const length = header.compressed_page_size;
    if (!(length >= 0 && reader.offset + length <= size)) throw new Error(`a page of ${length} bytes runs past the column chunk`);
    const body = new Uint8Array(buffer, start + reader.offset, length);
    reader.offset += length;
    if (header.type === 'DICTIONARY_PAGE') {
      const dph = header.dictionary_page_header;
      if (!dph) throw new Error('a dictionary page without its header');
      const page = h.decompressPage(body, header.uncompressed_page_size, meta.codec, h.compressors);
      const values = h.readPlain({ view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 }, meta.type, dph.num_values, plan.leaf.element.type_length);
      dictionary = plan.sink.convert(values);
    } else if (header.type === 'DATA_PAGE' || header.type === 'DATA_PAGE_V2') {
      const v1 = header.data_page_header;
      const v2 = header.data_page_header_v2;
      const encoding = v1?.encoding ?? v2?.encoding;
      const n = v1?.num_values ?? v2?.num_values;
      if (encoding === undefined || n === undefined) throw new Error('a data page without its header');
      const { definitionLevels, repetitionLevels, dataPage } = v1
        ? h.readDataPage(h.decompressPage(body, header.uncompressed_page_size, meta.codec, h.compressors), v1, decoder)
        : h.readDataPageV2(body, header, decoder);
      const indexed = encoding === 'PLAIN_DICTIONARY' || encoding === 'RLE_DICTIONARY';
      if (indexed && !dictionary) throw new Error('a dictionary-encoded page before any dictionary page');
      const src = indexed ? dictionary! : plan.sink.convert(dataPage);
      // V1 pages drop their definition levels when nothing is null; V2 pages always carry them, but
      // say how many nulls there are, and none is the common case the sinks copy in bulk
      const def = v2?.num_nulls === 0 ? undefined : definitionLevels;
      onPage({ n, def, rep: repetitionLevels, values: dataPage, indexed }, src);
      seen += n;
    }
    // index pages and unknown page types carry no values
  }
}
