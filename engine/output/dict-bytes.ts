/**
 * The UTF-8 bytes of a dictionary's entries, found without decoding a string: a stored dictionary's
 * own bytes (UTF-8 in memory, or a file dictionary's blocks), a picked or concatenated dictionary
 * through its base or parts; a dictionary of strings encodes each entry once, when first asked.
 */
import { ConcatDict, type Dict, PickDict, Utf8Dict } from '../core/dict.js';
import { FileDict } from '../storage/stored-column.js';

const encoder = new TextEncoder();
const NONE = new Uint8Array(0);
// a surrogate half without its partner (UTF-8 cannot hold it: the encoder writes U+FFFD)
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Resolves codes to byte ranges: after at(code), the entry is data[start .. end); `exact` is false
 * when those bytes do not spell the string exactly (a lone surrogate, encoded as U+FFFD), so a
 * renderer that must keep it (JSON escapes it) takes the string instead.
 */
export interface DictBytes {
  data: Uint8Array;
  start: number;
  end: number;
  exact: boolean;
  at(code: number): void;
}

/** The byte resolver of a dictionary. */
export function dictBytes(d: Dict): DictBytes {
  if (d instanceof Utf8Dict) {
    const { offsets } = d;
    return {
      data: d.data,
      start: 0,
      end: 0,
      exact: true,
      at(code) {
        this.start = offsets[code]!;
        this.end = offsets[code + 1]!;
      },
    };
  }
  if (d instanceof FileDict) {
    return {
      data: NONE,
      start: 0,
      end: 0,
      exact: true,
      at(code) {
        d.utf8Of(code, this);
      },
    };
  }
  if (d instanceof PickDict) {
    const base = dictBytes(d.base);
    const { picks } = d;
    return {
      data: NONE,
      start: 0,
      end: 0,
      exact: true,
      at(code) {
        base.at(picks[code]!);
        this.data = base.data;
        this.start = base.start;
        this.end = base.end;
        this.exact = base.exact;
      },
    };
  }
  if (d instanceof ConcatDict) {
    const parts = d.parts.map(dictBytes);
    const { bases } = d;
    return {
      data: NONE,
      start: 0,
      end: 0,
      exact: true,
      at(code) {
        const k = d.partOf(code);
        const part = parts[k]!;
        part.at(code - bases[k]!);
        this.data = part.data;
        this.start = part.start;
        this.end = part.end;
        this.exact = part.exact;
      },
    };
  }
  const encoded = new Array<Uint8Array | undefined>(d.length);
  const inexact = new Set<number>();
  return {
    data: NONE,
    start: 0,
    end: 0,
    exact: true,
    at(code) {
      let e = encoded[code];
      if (!e) {
        const s = d.get(code);
        encoded[code] = e = encoder.encode(s);
        if (LONE_SURROGATE.test(s)) inexact.add(code);
      }
      this.data = e;
      this.start = 0;
      this.end = e.length;
      this.exact = inexact.size === 0 || !inexact.has(code);
    },
  };
}
