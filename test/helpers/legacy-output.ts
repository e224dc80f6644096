/**
 * The string renderers of JSON payloads and CSV as they were before the byte renderers of
 * engine/output (one string per cell, concatenated per row): kept here, unchanged, as the oracle the
 * byte renderers must match byte for byte.
 */
import { int32Pairs, longText, type Column } from '../../engine/core/column.js';
import { textCells as engineTextCells } from '../../engine/output/text-cells.js';
import { formatLocalNs } from '../../engine/core/time.js';
import { zoneOffsets } from '../../engine/core/tz.js';
import type { Table } from '../../engine/core/table.js';
import { csvField } from '../../engine/output/csv.js';

/** An offset in ns as `±HH:MM` (`±HH:MM:SS` when it has seconds), written here on its own. */
function offsetText(off: bigint): string {
  const sec = Number(off < 0n ? -off : off) / 1e9;
  const two = (n: number): string => String(Math.floor(n)).padStart(2, '0');
  return `${off < 0n ? '-' : '+'}${two(sec / 3600)}:${two((sec % 3600) / 60)}${sec % 60 ? `:${two(sec % 60)}` : ''}`;
}

/**
 * The engine's cell text, with timestamps rendered here the slow, plain way (BigInt: the instant plus
 * its zone's offset), independent of the engine's timestamp writer, which its cell text now shares.
 * `csv`: outside UTC each followed by its offset (SPEC 8 as amended: CSV keeps the instant).
 */
function textCells(c: Column, outputTZ: string, nullText = '', csv = false): (i: number) => string {
  if (c.type !== 'timestamp') return engineTextCells(c, outputTZ, nullText);
  const offsets = zoneOffsets(outputTZ);
  const zoned = csv && outputTZ !== 'UTC';
  return (i) => {
    const ns = c.data[i]!;
    if (ns === -9223372036854775808n) return nullText;
    if (ns === 9223372036854775807n) return '0Wp';
    if (ns === -9223372036854775807n) return '-0Wp';
    const off = offsets.offsetAt(ns);
    return formatLocalNs(ns + off) + (zoned ? offsetText(off) : '');
  };
}

export function legacyPayloadJson(table: Table, outputTZ: string): string {
  const keys = table.names.map((n) => `${JSON.stringify(n)}:`);
  const cells = table.readers((c) => jsonCells(c, outputTZ));
  const ncol = keys.length;
  let buf = '[';
  for (let i = 0; i < table.length; i++) {
    let row = i === 0 ? '{' : ',{';
    for (let j = 0; j < ncol; j++) row += (j ? ',' : '') + keys[j] + cells[j]!(i);
    buf += `${row}}`;
  }
  return `${buf}]`;
}

export function legacyCsv(table: Table, outputTZ: string): string {
  const cells = table.readers((c) => textCells(c, outputTZ, '', true));
  let buf = `${table.names.map(csvField).join(',')}\n`;
  for (let i = 0; i < table.length; i++) {
    let line = '';
    for (let j = 0; j < cells.length; j++) line += (j ? ',' : '') + csvField(cells[j]!(i));
    buf += `${line}\n`;
  }
  return buf;
}

/** A function rendering row i of a column as a JSON value (SPEC 2 output encodings). */
function jsonCells(c: Column, outputTZ: string): (i: number) => string {
  switch (c.type) {
    case 'float':
      return (i) => {
        const x = c.data[i]!;
        return x !== x ? 'null' : x === Infinity ? '"inf"' : x === -Infinity ? '"-inf"' : String(x);
      };
    case 'long': {
      const w = int32Pairs(c.data);
      return (i) => longText(w, i) || 'null';
    }
    case 'int':
      return (i) => {
        const x = c.data[i]!;
        return x === -2147483648 ? 'null' : String(x);
      };
    case 'boolean':
      return (i) => (c.data[i] ? 'true' : 'false');
    case 'symbol': {
      // Quoted on first use: a dictionary may be far larger than the rows rendered.
      const quoted = new Array<string | undefined>(c.dict.length);
      return (i) => {
        const code = c.codes[i]!;
        return (quoted[code] ??= JSON.stringify(c.dict.get(code)));
      };
    }
    case 'string':
      return (i) => JSON.stringify(c.values[i]);
    case 'float[]':
    case 'long[]':
      return textCells(c, outputTZ);
    default: {
      const text = textCells(c, outputTZ, '\0');
      return (i) => {
        const s = text(i);
        return s === '\0' ? 'null' : `"${s}"`;
      };
    }
  }
}
