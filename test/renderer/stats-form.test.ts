/** The getStats form rendered on the server from props: analytics chips, the agg builder, groupBy and the bucket arguments. */
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { TableInfo } from '../../engine/contract.js';
import { OPERATIONS } from '../../engine/operations/index.js';
import { ArgFormView } from '../../renderer/src/components/arg-form.js';
import { aggValue } from '../../renderer/src/form/agg-body.js';
import { type FormValues, listValue } from '../../renderer/src/form/values.js';

const getStats = OPERATIONS.find((o) => o.name === 'getStats')!;
const col = (name: string, type: TableInfo['columns'][number]['type']): TableInfo['columns'][number] => ({ name, type });
const TABLES: TableInfo[] = [
  {
    name: 'Trade', kind: 'partitioned', timeColumn: 'eventTimestamp', idColumn: 'instrumentID', key: null, rows: 10, firstDate: '2024-03-06', lastDate: '2024-03-06',
    columns: [col('eventTimestamp', 'timestamp'), col('instrumentID', 'symbol'), col('price', 'float'), col('volume', 'long')],
    foreignKeys: { instrumentID: 'Instrument' },
    analytics: ['firstPrice', 'maxPrice', 'sumVolume', 'vwap', 'turnover'],
  },
  {
    name: 'Instrument', kind: 'reference', timeColumn: null, idColumn: 'instrumentID', key: 'instrumentID', rows: 2, firstDate: null, lastDate: null,
    columns: [col('instrumentID', 'symbol'), col('sector', 'symbol')], foreignKeys: {}, analytics: [],
  },
];

function render(values: FormValues, exchanges?: readonly string[]): string {
  const noop = (): void => {};
  return renderToString(
    createElement(ArgFormView, {
      op: getStats, values, tables: TABLES, ids: ['AAPL'], assemblies: ['demo'], assembly: 'demo', filterRules: [], formError: null, setField: noop, setAssembly: noop, onSubmit: noop,
      ...(exchanges ? { exchanges } : {}),
    }),
  );
}

describe('the getStats form', () => {
  it('offers the table’s analytics as chips with their meaning, and flags unknown names', () => {
    const html = render({ table: 'Trade', analytics: listValue(['vwap', 'maxPrice', 'maxVolumes']) });
    expect(html).toContain('>vwap<span class="chip-hint">configured</span>');
    expect(html).toContain('>maxPrice<span class="chip-hint">max of price</span>');
    expect(html).toMatch(/class="chip bad[^"]*" title="maxVolumes: not an analytic of Trade"/);
  });

  it('builds agg rows: operator and arguments, nested trees, inline problems, default names', () => {
    const html = render({
      table: 'Trade',
      agg: aggValue('dict', [
        { name: 'hi', tree: ['max', 'price'] },
        { name: '', tree: ['wavg', 'volume', ''] },
        { name: 'turnover', tree: ['sum', ['*', 'price', 'volume']] },
        { name: 'bad', tree: ['maximum', 'price'] },
      ]),
    });
    for (const id of ['arg-agg-row-3', 'arg-agg-0-op', 'arg-agg-0-col-1', 'arg-agg-1-col-2', 'arg-agg-2-kind-1', 'arg-agg-2-op-1', 'arg-agg-2-col-1-2', 'arg-agg-format']) {
      expect(html).toContain(`data-testid="${id}"`);
    }
    expect(html).toMatch(/<select aria-label="row 3 1 kind" data-testid="arg-agg-2-kind-1"[^>]*>.*?<option value="tree"[^>]*selected=""/);
    expect(html).toContain('placeholder="aggregation2"');
    expect(html).toContain('choose a column, a number or i');
    expect(html).toContain('&quot;maximum&quot; is not an operator');
    expect(html).toContain('weights');
  });

  it('keeps a text agg that the builder cannot show as text, with the builder switch disabled', () => {
    const html = render({ table: 'Trade', agg: '[["hi","max","price"],["sum","volume"]]' });
    expect(html).toContain('data-testid="arg-agg-text"');
    expect(html).toMatch(/<button type="button" class="" aria-pressed="false" disabled=""[^>]*>builder/);
    expect(render({ table: 'Trade', agg: '{"hi":["max","pirce"]}' })).toContain('hi: Trade has no column &quot;pirce&quot;');
  });

  it('shows "no grouping" as its own choice, and suggests joining the reference table', () => {
    const none = render({ table: 'Trade', groupBy: '[]' });
    expect(none).toMatch(/aria-pressed="true"[^>]*data-testid="arg-groupBy-none"|data-testid="arg-groupBy-none" aria-pressed="true"/);
    expect(none).toContain('sends [] · one group over everything');
    const dflt = render({ table: 'Trade' });
    expect(dflt).toContain('empty: one group per instrumentID');
    expect(dflt).toContain('+ ref <!-- -->Instrument');
    const sector = render({ table: 'Trade', ref: listValue(['Instrument']), groupBy: listValue(['sector', 'region']) });
    expect(sector).toContain('title="sector (Instrument)"');
    expect(sector).toMatch(/class="chip bad[^"]*" title="region: not a column of Trade"/);
  });

  it('explains buckets and what the holiday calendar needs', () => {
    const html = render({ table: 'Trade', granularity: '5', movingWindowSize: '15', applyHolidayCalendar: '1b' }, ['XLON', 'XNYS']);
    expect(html).toContain('needs granularityUnit; without it the whole window is one bucket');
    expect(html).toContain('needs granularityUnit (the window is counted in its units)');
    expect(html).toContain('<option value="XNYS">XNYS</option>');
    expect(html).toMatch(/⚠ needs <!-- -->fill/);
    expect(html).toMatch(/⚠ needs <!-- -->granularityUnit/);
    const ok = render({ table: 'Trade', startTS: '2024.03.06D09:30', endTS: '2024.03.06D16:00', granularity: '30', granularityUnit: 'minute' });
    expect(ok).toContain('30-minute buckets from startTS, labelled by their start: about 13 buckets per group');
  });
});
