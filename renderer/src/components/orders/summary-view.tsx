/**
 * The order-analytics workspace for getOrderAnalyticSummary: the summary grid (one row per group,
 * values formatted by each function's kind, costs coloured by its adverse direction, sortable, a
 * totals row computed over all orders), the distribution of executionShortfall over the selected
 * group's orders, and the markout curves (arrival to completion, +5 and +30 minutes) per group.
 */
import { tableFromIPC, type Table as ArrowTable } from 'apache-arrow';
import { useEffect, useMemo, useState } from 'react';
import { ARG, type RunResponse, type SummaryFunctionInfo } from '../../../../engine/contract';
import { backend } from '../../backend';
import { givenArgs } from '../../form/args';
import { formatValue, histogram, type Kind, KIND_UNIT, nextSort, priceDecimals, sortedRows, type SortState, toneOf } from '../../orders/tca';
import { assignColours } from '../../stats/group-colours';
import { callWithView, useStore } from '../../store/store';
import { summaryTitle } from '../widgets/widget';
import { type Drill, OrdersDrill } from './orders-drill';
import { MarkoutChart, ShortfallHistogram } from './tca-charts';

type Ok = Extract<RunResponse, { ok: true }>;

/** A small table read as text (cells as the CSV writes them) plus numbers. */
interface TextTable {
  readonly names: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
}

const MARKOUTS = ['startToEndReturn', 'startToEnd5MinReturn', 'startToEnd30MinReturn'] as const;
const colourMemory = new Map<string, number>();

async function runText(operation: string, args: Record<string, unknown>): Promise<TextTable> {
  const r = await backend().run(operation, args);
  if (!r.ok) throw new Error(r.header.ai);
  return readText(r);
}

async function readText(r: Ok): Promise<TextTable> {
  const rows: Array<readonly string[]> = [];
  for (let off = 0; off < r.rows; off += 10_000) rows.push(...(await backend().page(r.resultId, off, 10_000)).rows);
  return { names: r.columns.map((c) => c.name), rows };
}

const num = (s: string | undefined): number | null => (s === undefined || s === '' ? null : Number(s));

/** What only shapes a summary's rows: its totals and markouts are asked without it. */
const SHAPING: ReadonlySet<string> = new Set([ARG.fill, ARG.sortCols, ARG.groupBy, ARG.summaryFunctions, ARG.agg].map((a) => a.name));

/** The summary's own arguments, less what only shapes its rows (for the totals and markouts). */
function baseArgs(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([name]) => !SHAPING.has(name)));
}

/** A summary call over the base arguments: these groups, these summary functions. */
const summaryArgs = (base: Record<string, unknown>, groupBy: readonly string[], fns: readonly string[]): Record<string, unknown> => ({
  ...base,
  [ARG.groupBy.name]: groupBy,
  [ARG.summaryFunctions.name]: fns,
});

interface Aux {
  readonly totals: TextTable | null;
  readonly currencyTotals: TextTable | null;
  readonly markouts: TextTable | null;
  readonly orders: ArrowTable | null;
  readonly error: string | null;
}

const NO_AUX: Aux = { totals: null, currencyTotals: null, markouts: null, orders: null, error: null };

export function OrderSummaryView(): React.JSX.Element {
  const result = useStore((s) => s.result);
  const request = useStore((s) => s.request);
  const info = useStore((s) => s.info);
  const summaryCall = useStore((s) => callWithView(s.info, 'summary'));
  const ticksCall = useStore((s) => callWithView(s.info, 'ticks'));
  const assembly = useStore((s) => s.assembly);
  const fns = useMemo(() => new Map((info?.assemblies.find((a) => a.name === assembly)?.summaryFunctions ?? []).map((f) => [f.name, f])), [info, assembly]);
  const [main, setMain] = useState<TextTable | null>(null);
  const [aux, setAux] = useState<Aux>(NO_AUX);
  const [sort, setSort] = useState<SortState | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [drill, setDrill] = useState<Drill | null>(null);
  const args = useMemo(() => request?.args ?? {}, [request]);
  const groupCols = useMemo(() => result?.groupColumns ?? [], [result]);

  useEffect(() => {
    setMain(null);
    setAux(NO_AUX);
    setSort(null);
    setSelected(null);
    setDrill(null);
    if (!result || result.rows > 10_000 || !summaryCall) return undefined;
    let cancelled = false;
    void (async () => {
      const table = await readText(result);
      if (cancelled) return;
      setMain(table);
      const base = baseArgs(args);
      const valueFns = table.names.filter((n) => fns.get(n)?.kind === 'value');
      const shownFns = table.names.filter((n) => fns.has(n));
      try {
        const [totals, markouts, orders] = await Promise.all([
          runText(summaryCall, { ...summaryArgs(base, [], shownFns.length ? shownFns : ['']), ...givenArgs(args, [ARG.agg]) }),
          groupCols.length ? runText(summaryCall, summaryArgs(base, groupCols, MARKOUTS)) : Promise.resolve(null),
          ticksCall ? ordersOf(ticksCall, base, groupCols) : Promise.resolve(null),
        ]);
        // value columns are totalled per currency when the orders hold several
        const currencyTotals = valueFns.length ? await runText(summaryCall, summaryArgs(base, ['currency'], valueFns)) : null;
        if (!cancelled) setAux({ totals, currencyTotals: currencyTotals && currencyTotals.rows.length > 1 ? currencyTotals : null, markouts, orders, error: null });
      } catch (e) {
        if (!cancelled) setAux({ ...NO_AUX, error: (e as Error).message });
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [result, args, fns, groupCols, summaryCall, ticksCall]);

  const hist = useHistogram(aux.orders, main, groupCols, selected);
  const open = (row: number): void => {
    if (!main || row < 0 || row >= main.rows.length) return;
    setSelected(row);
    setDrill({ label: groupLabel(main, groupCols, row), args: drillArgs(args, groupCols.map((g) => [g, main.rows[row]![main.names.indexOf(g)] ?? ''])) });
  };
  if (!result) return <section className="tca-panel empty muted">No result yet.</section>;
  if (result.rows > 10_000) return <section className="tca-panel empty muted">{result.rows.toLocaleString()} groups: see the grid below.</section>;
  if (!main) return <section className="tca-panel empty muted">Reading the summary…</section>;
  return (
    <section className="tca-panel" aria-label="Order analytics summary">
      <SummaryGrid main={main} groupCols={groupCols} fns={fns} totals={aux.totals} currencyTotals={aux.currencyTotals} sort={sort} setSort={setSort} selected={selected} setSelected={setSelected} onOpen={open} />
      {drill ? (
        <OrdersDrill drill={drill} onClose={() => setDrill(null)} />
      ) : (
        <div className="tca-charts">
          <ShortfallHistogram
            title={selected === null ? 'all orders' : groupLabel(main, groupCols, selected)}
            hist={hist}
            error={aux.error}
            onOpen={() => open(selected ?? -1)}
            openLabel={selected === null || groupCols.length === 0 ? null : `orders of ${groupLabel(main, groupCols, selected)} →`}
          />
          <MarkoutChart markouts={aux.markouts} groupCols={groupCols} selectedKey={selected === null ? null : groupKey(main, groupCols, selected)} colours={colourMemory} assign={assignColours} totals={aux.totals} />
        </div>
      )}
    </section>
  );
}

/** What a getTicks call of the summary's orders keeps of the summary: its routing, zones, window and filter. */
const KEPT = [ARG.scope, ARG.inputTZ, ARG.outputTZ, ARG.temporality, ARG.slice, ARG.filter, ARG.startTS, ARG.endTS];

/** getTicks arguments for the orders of one group: the summary's window and filter, and the group's values. */
function drillArgs(args: Readonly<Record<string, unknown>>, group: ReadonlyArray<readonly [string, string]>): Record<string, unknown> {
  const filter = args[ARG.filter.name];
  // the filter comes last, with the group's clauses
  const out: Record<string, unknown> = { [ARG.table.name]: args[ARG.table.name], ...givenArgs(args, KEPT.filter((a) => a !== ARG.filter)) };
  const clauses = group.map(([column, value]) => ['=', column, value]);
  if (typeof filter === 'string' && filter.trim()) out[ARG.filter.name] = [filter, ...group.map(([c, v]) => `${c}=${v}`)].join(';');
  else if (Array.isArray(filter) || clauses.length) out[ARG.filter.name] = [...(Array.isArray(filter) ? (filter as unknown[]) : []), ...clauses];
  return out;
}

/** The orders of the summary's window and filter (read by `ticksCall`, getTicks' call name), with the columns the histogram groups and bins by. */
async function ordersOf(ticksCall: string, base: Record<string, unknown>, groupCols: readonly string[]): Promise<ArrowTable | null> {
  const args = {
    [ARG.table.name]: base[ARG.table.name],
    [ARG.columns.name]: [...new Set([...groupCols, 'executionShortfall', 'executedQty'])],
    ...givenArgs(base, KEPT),
  };
  const r = await backend().run(ticksCall, args);
  if (!r.ok) throw new Error(r.header.ai);
  return tableFromIPC(await backend().table(r.resultId));
}

const keyOf = (values: readonly string[]): string => values.join('\u0000');
const groupKey = (t: TextTable, groupCols: readonly string[], row: number): string => keyOf(groupCols.map((g) => t.rows[row]![t.names.indexOf(g)] ?? ''));
const groupLabel = (t: TextTable, groupCols: readonly string[], row: number): string => groupCols.map((g) => t.rows[row]![t.names.indexOf(g)] || '(null)').join(' · ') || 'all orders';

/** Text of a cell of an Arrow column as the CSV writes it (symbols, dates, numbers). */
function arrowText(v: unknown, typeId: string): string {
  if (v === null || v === undefined) return '';
  if (typeId.startsWith('Date')) return new Date(Number(v)).toISOString().slice(0, 10);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return String(v);
}

function useHistogram(orders: ArrowTable | null, main: TextTable | null, groupCols: readonly string[], selected: number | null): ReturnType<typeof histogram> | null {
  return useMemo(() => {
    if (!orders || !main) return null;
    const es = orders.getChild('executionShortfall');
    const qty = orders.getChild('executedQty');
    if (!es || !qty) return null;
    const want = selected === null ? null : groupKey(main, groupCols, selected);
    const cols = groupCols.map((g) => orders.getChild(g));
    const types = groupCols.map((g) => String(orders.schema.fields.find((f) => f.name === g)?.type ?? ''));
    const values: number[] = [];
    for (let i = 0; i < orders.numRows; i++) {
      const q = qty.get(i) as bigint | number | null;
      const v = es.get(i) as number | null;
      // the shortfall of orders with fills, as the executionShortfall function averages it
      if (q === null || Number(q) <= 0 || v === null) continue;
      if (want !== null && keyOf(cols.map((c, j) => arrowText(c?.get(i), types[j]!))) !== want) continue;
      values.push(v);
    }
    return histogram(values);
  }, [orders, main, groupCols, selected]);
}

interface GridProps {
  readonly main: TextTable;
  readonly groupCols: readonly string[];
  readonly fns: ReadonlyMap<string, SummaryFunctionInfo>;
  readonly totals: TextTable | null;
  readonly currencyTotals: TextTable | null;
  readonly sort: SortState | null;
  readonly setSort: (s: SortState | null) => void;
  readonly selected: number | null;
  readonly setSelected: (row: number | null) => void;
  /** Opens a row's orders (Enter, double click). */
  readonly onOpen: (row: number) => void;
}

interface ColumnView {
  readonly name: string;
  readonly group: boolean;
  readonly kind: Kind | null;
  readonly fn: SummaryFunctionInfo | undefined;
  readonly dp: number;
}

function SummaryGrid(p: GridProps): React.JSX.Element {
  const { main, groupCols, fns } = p;
  const columns: ColumnView[] = useMemo(
    () =>
      main.names.map((name, j) => {
        const fn = fns.get(name);
        const group = groupCols.includes(name);
        const kind: Kind | null = group ? null : (fn?.kind ?? 'number');
        const values = main.rows.map((r) => num(r[j]));
        const integral = !fn && values.every((v) => v === null || Number.isInteger(v));
        return { name, group, kind: integral && kind === 'number' ? 'count' : kind, fn, dp: kind === 'price' ? priceDecimals(values) : 2 };
      }),
    [main, fns, groupCols],
  );
  const total = (name: string): number | null => {
    const t = p.totals;
    if (!t || t.rows.length === 0) return null;
    return num(t.rows[0]![t.names.indexOf(name)]);
  };
  const order = useMemo(
    () =>
      sortedRows(
        main.rows.length,
        (r) => {
          const j = main.names.indexOf(p.sort!.column);
          const c = columns[j]!;
          return c.group ? (main.rows[r]![j] ?? '') : num(main.rows[r]![j]);
        },
        p.sort,
      ),
    [main, columns, p.sort],
  );

  const onKeyDown = (e: React.KeyboardEvent): void => {
    if (e.key === 'Enter' && p.selected !== null && p.groupCols.length > 0) {
      e.preventDefault();
      p.onOpen(p.selected);
      return;
    }
    if (e.key === 'Escape' && p.selected !== null) {
      e.preventDefault();
      e.stopPropagation();
      p.setSelected(null);
      return;
    }
    const step = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : e.key === 'Home' ? -Infinity : e.key === 'End' ? Infinity : 0;
    if (step === 0 || order.length === 0) return;
    e.preventDefault();
    const at = p.selected === null ? -1 : order.indexOf(p.selected);
    const next = Math.max(0, Math.min(order.length - 1, Number.isFinite(step) ? at + step : step > 0 ? order.length - 1 : 0));
    p.setSelected(order[next]!);
  };

  const cellOf = (c: ColumnView, text: string | undefined, tot: number | null): { text: string; tone: string } => {
    if (c.group || c.kind === null) return { text: text || '(null)', tone: '' };
    const v = num(text);
    const tone = c.fn ? toneOf(c.fn, v, tot) : null;
    return { text: formatValue(c.kind, v, c.dp), tone: tone ?? '' };
  };

  return (
    <div className="tca-grid-scroll" tabIndex={0} onKeyDown={onKeyDown} data-testid="tca-grid" aria-label="Summary by group">
      <table className="tca-grid">
        <thead>
          <tr>
            {columns.map((c) => {
              const dir = p.sort?.column === c.name ? p.sort.dir : null;
              return (
                <th key={c.name} data-col={c.name} className={c.group ? 'grp' : 'num'} aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none'}>
                  <button type="button" title={c.fn ? summaryTitle(c.fn) : c.group ? `group: ${c.name}` : `agg: ${c.name}`} onClick={() => p.setSort(nextSort(p.sort, c.name, !c.group))}>
                    {c.name}
                    {c.kind && KIND_UNIT[c.kind] && <span className="unit">{KIND_UNIT[c.kind]}</span>}
                    <span className="sort-mark">{dir === 'asc' ? '▲' : dir === 'desc' ? '▼' : ''}</span>
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {p.totals && p.totals.rows[0] && (
            <tr className="tca-total" data-testid="tca-total">
              {columns.map((c, j) => {
                if (c.group) return <td key={c.name} className="grp">{j === 0 ? 'All orders' : ''}</td>;
                const t = p.totals!;
                const { text } = cellOf(c, t.rows[0]![t.names.indexOf(c.name)], null);
                return (
                  <td key={c.name} className="num">
                    {text}
                  </td>
                );
              })}
            </tr>
          )}
          {p.currencyTotals?.rows.map((r, i) => (
            <tr key={`ccy-${i}`} className="tca-total ccy">
              {columns.map((c, j) => {
                const t = p.currencyTotals!;
                const at = t.names.indexOf(c.name);
                if (c.group) return <td key={c.name} className="grp">{j === 0 ? `All orders, ${r[t.names.indexOf('currency')] || '(no currency)'}` : ''}</td>;
                return (
                  <td key={c.name} className="num">
                    {at >= 0 ? cellOf(c, r[at], null).text : ''}
                  </td>
                );
              })}
            </tr>
          ))}
          {order.map((row) => (
            <tr
              key={row}
              className={row === p.selected ? 'selected' : ''}
              data-row={row}
              onClick={() => p.setSelected(row === p.selected ? null : row)}
              onDoubleClick={() => p.groupCols.length > 0 && p.onOpen(row)}
              title={p.groupCols.length > 0 ? 'Double-click or Enter: this group’s orders' : undefined}
            >
              {columns.map((c, j) => {
                const { text, tone } = cellOf(c, main.rows[row]![j], total(c.name));
                return (
                  <td key={c.name} className={`${c.group ? 'grp' : 'num'} ${tone}`}>
                    {text}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
