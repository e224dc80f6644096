/**
 * Requests bounded before they are trusted (SPEC 7, 10): how deep a request nests and how many values
 * it holds. A JSON text is scanned before JSON.parse builds anything, so a 100,000-deep body costs one
 * pass over its bytes and never reaches a recursive algorithm (a structured clone to a worker, a
 * decoder, an error's JSON.stringify); a value that arrives already built (a desktop IPC call, an
 * in-process caller) is walked without recursion before it crosses a thread boundary.
 */
import { quoteText, TickscopeError } from './errors.js';

export interface InputLimits {
  /** Deepest nesting of arrays and objects (the request's own object is level 1). */
  readonly maxDepth: number;
  /** Most values: every scalar, array and object counts one (an object's keys do not). */
  readonly maxElements: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function tooDeep(part: string, where: string | null, limits: InputLimits): TickscopeError {
  return new TickscopeError('inputLimit', `${where ?? part}: nested deeper than ${limits.maxDepth} levels of arrays and objects (maxJsonDepth ${limits.maxDepth}); expected a shallower value`);
}

function tooMany(part: string, where: string | null, limits: InputLimits): TickscopeError {
  return new TickscopeError('inputLimit', `${where ?? part}: holds more than ${limits.maxElements} values (maxJsonElements ${limits.maxElements}); expected a smaller request`);
}

/**
 * Checks a JSON text against the limits without building it: one pass tracking the nesting and
 * counting values. The error names the top-level key (the argument) whose value is at fault, else
 * `part` ("body"). Malformed text is left for JSON.parse to report.
 */
export function scanJson(text: string, limits: InputLimits, part = 'body'): void {
  // 1: object, 0: array, per level; an object's level expects a key after `{` and `,`
  const stack: number[] = [];
  let expectKey = false;
  let elements = 0;
  let topKey: string | null = null;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i + 1;
      let j = text.indexOf('"', start);
      // a quote preceded by an odd run of backslashes is escaped
      while (j > 0) {
        let k = j - 1;
        while (k >= start && text.charCodeAt(k) === BACKSLASH) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      if (j < 0) return; // unterminated: JSON.parse reports it
      if (expectKey) {
        if (stack.length === 1) topKey = keyText(text.slice(start, j));
      } else if (++elements > limits.maxElements) throw tooMany(part, topKey, limits);
      i = j;
      continue;
    }
    switch (c) {
      case 0x7b: // {
      case 0x5b: // [
        if (++elements > limits.maxElements) throw tooMany(part, topKey, limits);
        stack.push(c === 0x7b ? 1 : 0);
        if (stack.length > limits.maxDepth) throw tooDeep(part, topKey, limits);
        expectKey = c === 0x7b;
        break;
      case 0x7d: // }
      case 0x5d: // ]
        stack.pop();
        if (stack.length === 0) topKey = null;
        expectKey = false;
        break;
      case 0x3a: // :
        expectKey = false;
        break;
      case 0x2c: // ,
        expectKey = stack[stack.length - 1] === 1;
        break;
      case 0x20:
      case 0x0a:
      case 0x0d:
      case 0x09:
        break;
      default: {
        // a number, true, false or null: one value, up to the next delimiter
        if (++elements > limits.maxElements) throw tooMany(part, topKey, limits);
        while (i + 1 < n) {
          const d = text.charCodeAt(i + 1);
          if (d === 0x2c || d === 0x5d || d === 0x7d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09 || d === 0x3a || d === QUOTE) break;
          i++;
        }
      }
    }
  }
}

/** A key as the error shows it (escapes decoded when they parse; at most ~200 characters). */
function keyText(raw: string): string {
  let key = raw;
  if (raw.includes('\\')) {
    try {
      key = JSON.parse(`"${raw}"`) as string;
    } catch {
      key = raw;
    }
  }
  return /^[A-Za-z_][\w.]{0,63}$/.test(key) ? key : quoteText(key);
}

/**
 * Parses a JSON text checked against the limits first; malformed text is a badRequest naming `part`
 * and where it broke.
 */
export function parseBoundedJson(text: string, limits: InputLimits, part = 'body'): unknown {
  scanJson(text, limits, part);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new TickscopeError('badRequest', `${part}: not JSON (${quoteText((e as Error).message, 120)}); expected an object of arguments such as {"table":"Trade"}`);
  }
}

/**
 * Checks a built value against the limits without recursion (a desktop IPC call, an in-process
 * caller, anything about to be posted to a worker). Cycles count as too deep.
 */
export function checkValueBounds(value: unknown, limits: InputLimits, part = 'args'): void {
  if (value === null || typeof value !== 'object') return;
  // values still to visit, with their depth and the top-level key they sit under
  const todo: Array<{ v: object; depth: number; key: string | null }> = [{ v: value, depth: 1, key: null }];
  let elements = 1;
  while (todo.length > 0) {
    const { v, depth, key } = todo.pop()!;
    if (depth > limits.maxDepth) throw tooDeep(part, key, limits);
    const entries: Array<[string | null, unknown]> = Array.isArray(v) ? v.map((x) => [null, x]) : ArrayBuffer.isView(v) ? [] : Object.entries(v);
    elements += entries.length;
    if (elements > limits.maxElements) throw tooMany(part, key, limits);
    for (const [k, x] of entries) {
      if (x !== null && typeof x === 'object') todo.push({ v: x, depth: depth + 1, key: depth === 1 && k !== null ? k : key });
    }
  }
}
