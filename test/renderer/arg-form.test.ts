/** The generated form rendered on the server with only props: every widget, its state and its feedback. */
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { TableInfo } from '../../engine/contract.js';
import { OPERATIONS } from '../../engine/operations/index.js';
import { ArgFormView } from '../../renderer/src/components/arg-form.js';
import { type FormValues, listValue, rowsValue } from '../../renderer/src/form/values.js';

const getTicks = OPERATIONS.find((o) => o.name === 'getTicks')!;
const col = (name: string, type: TableInfo['columns'][number]['type']): TableInfo['columns'][number] => ({ name, type });
const TABLES: TableInfo[] = [
  {
    name: 'Trade', kind: 'partitioned', timeColumn: 'eventTimestamp', idColumn: 'instrumentID', key: null, rows: 10, firstDate: '2024-03-06', lastDate: '2024-03-06',
    columns: [col('eventTimestamp', 'timestamp'), col('instrumentID', 'symbol'), col('exchTime', 'timestamp'), col('price', 'float'), col('volume', 'long')],
    foreignKeys: { instrumentID: 'Instrument' },
    analytics: ['firstPrice', 'vwap'],
  },
  {
    name: 'Instrument', kind: 'reference', timeColumn: null, idColumn: 'instrumentID', key: 'instrumentID', rows: 2, firstDate: null, lastDate: null,
    columns: [col('instrumentID', 'symbol'), col('sector', 'symbol'), col('lotSize', 'long')], foreignKeys: {}, analytics: [],
  },
];

function render(values: FormValues): string {
  const noop = (): void => {};
  return renderToString(
    createElement(ArgFormView, { op: getTicks, values, tables: TABLES, ids: ['AAPL', 'MSFT'], assemblies: ['demo'], assembly: 'demo', filterRules: ['regularTrades'], formError: null, setField: noop, setAssembly: noop, onSubmit: noop }),
  );
}

describe('the generated form', () => {
  it('renders each widget with its value', () => {
    const html = render({
      table: 'Trade',
      startTS: '2024.03.06D09:30',
      endTS: '2024.03.06D16:00',
      inputTZ: 'America/New_York',
      idList: listValue(['AAPL', 'ZZZZ'], 'MS'),
      columns: listValue(['price', 'volume']),
      filter: rowsValue([['<', 'price', '100', '']]),
      sortCols: rowsValue([['desc', 'volume']]),
      slice: '22:00|06:00',
      refFilter: rowsValue([['Instrument', 'like', 'sector', 'Tech*', '']]),
      orderbook: 'instrumentNames',
    });
    for (const arg of getTicks.args) expect(html).toContain(`data-testid="arg-${arg.name}"`);
    expect(html).toContain('data-testid="arg-startTS-zone"');
    expect(html).toMatch(/title="Read as local time in America\/New_York \(inputTZ\)" data-testid="arg-startTS-zone">New York</);
    // an unknown identifier: red, with the reason in its tooltip and written under the chips
    expect(html).toMatch(/class="chip bad[^"]*" title="ZZZZ: not in Trade on any date \(2024-03-06\)"/);
    expect(html).toMatch(/data-testid="arg-idList-problem"[^>]*><div>ZZZZ<!-- -->: <!-- -->not in Trade on any date \(2024-03-06\)<\/div>/);
    expect(html).toContain('value="MS"');
    expect(html).toContain('>price<span class="chip-hint">float</span>');
    expect(html).toContain('data-testid="arg-filter-row-0"');
    expect(html).toContain('↓ desc');
    expect(html).toContain('start &gt; end: overnight');
    expect(html).toContain('data-testid="arg-refFilter-row-0"');
    expect(html).toContain('needs ref Instrument');
    const timeCol = /<select id="arg-timeCol".*?<\/select>/.exec(html)![0];
    expect([...timeCol.matchAll(/<option value="(\w*)"/g)].map((m) => m[1])).toEqual(['', 'eventTimestamp', 'exchTime']);
    expect(html).toContain('"request-preview"');
  });

  it('flags bad values where they are typed', () => {
    const html = render({ table: 'Trade', startTS: '2024.02.30', endTS: '2024.03.06D16:00', inputTZ: 'Mars/Base', decPlaces: 'two' });
    expect(html).toContain('2024.02 has no day 30');
    expect(html).toContain('unknown zone');
    expect(html).toMatch(/<input id="arg-decPlaces"[^>]*class="invalid"/);
    const window = render({ table: 'Trade', startTS: '2024.03.06D16:00', endTS: '2024.03.06D09:30' });
    expect(window).toContain('data-testid="arg-endTS-msg"');
    expect(window).toContain('startTS &gt;= endTS');
  });

  it('shows the text form when the filter is text, and blocks the builder for q text', () => {
    const html = render({ table: 'Trade', filter: '((<;`price;100);(in;`instrumentID;`A`B))' });
    expect(html).toContain('data-testid="arg-filter-text"');
    expect(html).toMatch(/<button type="button" class="" aria-pressed="false" disabled=""[^>]*>builder/);
    expect(render({ table: 'Trade', filter: 'price<100' })).not.toMatch(/disabled=""[^>]*>builder/);
  });

  it('says when the request cannot be built', () => {
    expect(render({ table: 'Trade', filter: rowsValue([['>', '', '5', '']]) })).toContain('filter: row 1 has no column');
  });
});
