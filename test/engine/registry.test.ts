/**
 * The conformance test: walks every registered operation and argument and checks that it decodes
 * its example, rejects a wrong value naming itself, is documented, and appears in the app's form.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../engine/core/errors.js';
import { decodeArgs } from '../../engine/registry/decode.js';
import { argumentsMarkdown } from '../../engine/registry/docs.js';
import { OPERATIONS, operationByName, operationByRestPath } from '../../engine/registry/operations.js';
import { ArgFormView } from '../../renderer/src/components/arg-form.js';
import { makeEngine } from '../helpers/db.js';

const DOC = 'docs/arguments.md';

/** A value of the wrong shape for each argument type. */
const WRONG: Record<string, unknown> = {
  symbol: 42,
  symbols: [1, 2],
  timestamp: 'not a time',
  date: '2024.13.45',
  timespanPair: ['09:30'],
  integer: 'many',
  boolean: 'perhaps',
  filter: 17,
  sortCols: ['sideways', 'price'],
  dict: 'assembly',
  booleanOrSymbol: 3,
};

function decodeError(op: string, args: Record<string, unknown>): TickscopeError {
  try {
    decodeArgs(operationByName(op), args);
  } catch (e) {
    if (e instanceof TickscopeError) return e;
    throw e;
  }
  throw new Error(`no error for ${JSON.stringify(args)}`);
}

describe('registry conformance', () => {
  const noop = (): void => {};
  const form = (op: (typeof OPERATIONS)[number]): string =>
    renderToString(
      createElement(ArgFormView, {
        op,
        values: {},
        tables: [],
        ids: [],
        assemblies: ['demo'],
        assembly: 'demo',
        filterRules: [],
        formError: null,
        setField: noop,
        setAssembly: noop,
        onSubmit: noop,
      }),
    );

  for (const op of OPERATIONS) {
    describe(op.name, () => {
      it('resolves every name and REST path to the operation', () => {
        for (const n of op.ipcNames) expect(operationByName(n).name).toBe(op.name);
        for (const p of op.restPaths) expect(operationByRestPath(p)?.name).toBe(op.name);
      });

      const html = form(op);
      for (const arg of op.args) {
        it(`${arg.name}: decodes its example, rejects a wrong value, is documented and in the form`, () => {
          const base: Record<string, unknown> = arg.required || arg.name === 'table' ? {} : { table: 'Trade' };
          const decoded = decodeArgs(
            { ...op, supported: op.args.map((a) => a.name) },
            { ...base, [arg.name]: arg.example },
          );
          expect(decoded.has(arg.name)).toBe(true);
          const wrong = WRONG[arg.type];
          if (wrong !== undefined) {
            const e = decodeError(op.ipcNames[0]!, { ...base, [arg.name]: wrong });
            expect(e.message.startsWith(`${arg.name}: `), e.message).toBe(true);
            expect([4, 5, 10, 11]).toContain(e.ac);
          }
          expect(arg.doc.length).toBeGreaterThan(10);
          expect(html).toContain(`data-testid="arg-${arg.name}"`);
          expect(html).toContain(arg.doc.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').slice(0, 30));
        });
      }
    });
  }

  it('rejects unknown operations and arguments, naming them', () => {
    expect(() => operationByName('getTick')).toThrow(/operation: "getTick" is not an operation; expected one of .fsi.getTicks/);
    const e = decodeError('getTicks', { table: 'Trade', colums: ['price'] });
    expect([e.ac, e.message.split(';')[0]]).toEqual([2, 'colums: is not an argument of getTicks']);
  });

  it('answers "not supported yet" for an argument an operation does not implement, naming it', () => {
    const op = { ...operationByName('getTicks'), supported: ['table', 'startTS'] };
    try {
      decodeArgs(op, { table: 'Trade', fill: 'forward' });
      throw new Error('expected an error');
    } catch (err) {
      expect((err as TickscopeError).ac).toBe(8);
      expect((err as TickscopeError).message).toMatch(/^fill: not supported yet in getTicks \(value "forward"\); supported so far: table, startTS$/);
    }
    // Its default value changes nothing, so it is accepted.
    expect(decodeArgs(op, { table: 'Trade', temporality: 'continuous', applyCanCor: '0b' }).has('table')).toBe(true);
  });

  it('implements every operation, validating its arguments first', () => {
    const engine = makeEngine({});
    expect(() => engine.call('getOrderAnalyticSummary', { table: 'OrderAnalytics', summaryFunctions: 42 })).toThrow(/summaryFunctions: 42 is not valid/);
    expect(() => engine.call('generateOrderAnalytics', { table: 'Order', dt: 'monday' })).toThrow(/^dt: "monday" is not a date; expected/);
    for (const op of OPERATIONS) expect(op.supported.length, op.name).toBe(op.args.length);
  });

  it('keeps docs/arguments.md generated from the registry', () => {
    const md = argumentsMarkdown();
    if (process.env['UPDATE_DOCS']) writeFileSync(DOC, md);
    expect(readFileSync(DOC, 'utf8')).toBe(md);
  });
});
