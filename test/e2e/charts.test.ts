/**
 * The charts' readouts in a browser (issue 13, points 5 and 6): the crosshair values float over the
 * chart, so hovering moves nothing; every shown group has its readout line; the instrument picker keeps
 * its choice across a re-run; auction prints are clipped on the volume scale; a getStats result without
 * buckets is a bar chart with one panel per aggregate and every group. Screenshots of each view at
 * 1280×800 and 1600×1000 go to test-results/.
 */
import { execFileSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, CLI, openApp, rerun as rerunForm, runLinked, shotsAtSizes } from './harness.js';

let app: App;
let page: Page;
const DAY = '2024.03.06';

beforeAll(async () => {
  app = await openApp(['--days', '1', '--instruments', '20', '--trades-per-day', '20000'], 'tickscope-charts-');
  page = app.page;
});

afterAll(async () => app?.close());

type Row = Record<string, unknown>;

function call(op: string, body: Row): Row[] {
  const out = execFileSync(process.execPath, [CLI, 'call', '--db', app.db, op, JSON.stringify(body)], { maxBuffer: 1 << 26 });
  return (JSON.parse(out.toString()) as { payload: Row[] }).payload;
}

const run = (op: string, args: Row): Promise<number> => runLinked(app, op, args);
const rerun = (): Promise<number> => rerunForm(page);

const box = async (sel: string): Promise<{ x: number; y: number; width: number; height: number }> => (await page.locator(sel).first().boundingBox())!;

const shots = (name: string, hover?: () => Promise<void>): Promise<void> => shotsAtSizes(page, `e2e-charts-${name}`, hover);

describe('chart readouts', () => {
  it('tick chart: values float over the chart (nothing moves on hover), volume clipped, picker kept across a re-run', async () => {
    const args = { table: 'Trade', startTS: `${DAY}D00:00:00`, endTS: `${DAY}D23:59:59`, idList: ['AAPL', 'MSFT', 'VOD'], columns: ['instrumentID', 'price', 'volume'] };
    await run('getTicks', args);
    await page.waitForSelector('[data-testid="chart-readout"]');
    const toolbar = await box('.tick-chart > .chart-toolbar');
    const chart = await box('[data-testid="chart"]');
    // away from the chart the legend holds the last tick
    const last = call('.fsi.getTicks', { ...args, idList: ['AAPL'] }).at(-1)!;
    expect(await page.locator('[data-testid="chart-readout-id"]').textContent()).toBe('AAPL');
    expect(await page.locator('[data-testid="chart-readout"] [data-col="price"]').getAttribute('title')).toBe(String(last['price']));

    for (const f of [0.2, 0.5, 0.8]) {
      await page.mouse.move(chart.x + chart.width * f, chart.y + chart.height * 0.4);
      await page.waitForTimeout(50);
      expect(await box('.tick-chart > .chart-toolbar')).toEqual(toolbar);
      expect(await box('[data-testid="chart"]')).toEqual(chart);
    }
    expect(await page.locator('[data-testid="chart-readout-time"]').textContent()).toMatch(/^2024-03-06 \d\d:\d\d:\d\d\.\d{9}$/);
    // the open and close crosses are far above ordinary trades: drawn clipped, counted in the toolbar
    expect(Number((await page.locator('[data-testid="chart-clipped"]').textContent())!.replace(/\D/g, ''))).toBeGreaterThanOrEqual(2);
    await shots('ticks', () => page.mouse.move(chart.x + chart.width * 0.45, chart.y + chart.height * 0.4));

    // The picker keeps MSFT through a re-run of the same request, and of one that still holds it.
    await page.selectOption('[data-testid="chart-id"]', 'MSFT');
    await expect.poll(() => page.locator('[data-testid="chart-readout-id"]').textContent()).toBe('MSFT');
    await rerun();
    await expect.poll(() => page.inputValue('[data-testid="chart-id"]')).toBe('MSFT');
    expect(await page.locator('[data-testid="chart-readout-id"]').textContent()).toBe('MSFT');
    await page.fill('[data-testid="arg-endTS"]', `${DAY}D18:00:00`);
    await rerun();
    await expect.poll(() => page.inputValue('[data-testid="chart-id"]')).toBe('MSFT');
  });

  it('stats chart: one readout line per shown group, with that group’s values at the crosshair', async () => {
    const args = { table: 'Trade', startTS: `${DAY}D14:30:00`, endTS: `${DAY}D21:00:00`, idList: ['AAPL', 'MSFT', 'NVDA'], analytics: ['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume'], granularity: 5, granularityUnit: 'minute' };
    await run('getStats', args);
    const payload = call('.fsi.getStats', args);
    await page.waitForSelector('[data-testid="stats-chart"] canvas');
    const host = await box('[data-testid="stats-chart"]');
    const toolbar = await box('.stats-panel > .chart-toolbar');
    await page.mouse.move(host.x + host.width * 0.5, host.y + host.height * 0.5);
    const lines = page.locator('[data-testid="stats-readout-line"]');
    await expect.poll(() => lines.evaluateAll((els) => els.map((e) => e.getAttribute('data-group')))).toEqual(['AAPL', 'MSFT', 'NVDA']);
    expect(await box('.stats-panel > .chart-toolbar')).toEqual(toolbar);
    expect(await box('[data-testid="stats-chart"]')).toEqual(host);
    const label = (await page.locator('[data-testid="stats-bucket"]').textContent())!;
    const m = /(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{9})/.exec(label)!;
    const at = `${m[1]}T${m[2]}`;
    for (const id of ['AAPL', 'MSFT', 'NVDA']) {
      const row = payload.find((r) => r['instrumentID'] === id && r['eventTimestamp'] === at)!;
      const values = Object.fromEntries(await page.locator(`[data-testid="stats-readout-line"][data-group="${id}"] [data-name]`).evaluateAll((els) => els.map((e) => [e.getAttribute('data-name'), e.getAttribute('data-exact')])));
      expect(values, id).toEqual({ O: String(row['firstPrice']), H: String(row['maxPrice']), L: String(row['minPrice']), C: String(row['lastPrice']), sumVolume: String(row['sumVolume']) });
    }
    // shown as the grid shows them: two decimals for these prices, volume with separators
    expect(await page.locator('[data-testid="stats-readout-line"][data-group="AAPL"] [data-name="sumVolume"] .v').textContent()).toMatch(/^\d{1,3}(,\d{3})*$/);
    // folded, the legend keeps only the hovered group's line
    await page.click('[data-testid="stats-readout-fold"]');
    await expect.poll(() => lines.count()).toBe(1);
    await page.click('[data-testid="stats-readout-fold"]');
    await expect.poll(() => lines.count()).toBe(3);
    // hiding a group in the legend drops its line
    await page.click('[data-testid="legend-MSFT"]');
    await expect.poll(() => lines.evaluateAll((els) => els.map((e) => e.getAttribute('data-group')))).toEqual(['AAPL', 'NVDA']);
    await page.click('[data-testid="legend-MSFT"]');
    await shots('groups', () => page.mouse.move(host.x + host.width * 0.45, host.y + host.height * 0.4));

    // candles of one group, 1-minute buckets
    await run('getStats', { ...args, idList: ['AAPL'], granularity: 1 });
    await page.waitForSelector('[data-testid="stats-chart"] canvas');
    await expect.poll(() => lines.count()).toBe(1);
    await shots('candles', async () => {
      const b = await box('[data-testid="stats-chart"]');
      await page.mouse.move(b.x + b.width * 0.45, b.y + b.height * 0.4);
    });
  });

  it('getStats without buckets: one bar panel per aggregate, every group, sorted, exact value on hover', async () => {
    const args = { table: 'Trade', startTS: `${DAY}D00:00:00`, endTS: `${DAY}D23:59:59`, analytics: ['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume'], groupBy: ['instrumentID'] };
    expect(await run('getStats', args)).toBe(20);
    const payload = call('.fsi.getStats', args);
    const chart = page.locator('[data-testid="bar-chart"]');
    await chart.waitFor();
    expect(await chart.getAttribute('data-panels')).toBe('5');
    expect(await chart.getAttribute('data-groups')).toBe('20');
    const panels = page.locator('[data-testid="bar-panel"]');
    expect(await panels.evaluateAll((els) => els.map((e) => e.getAttribute('data-column')))).toEqual(['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume']);
    // rows are positioned: read them top to bottom
    const ordered = async (column: string): Promise<Array<[string, string]>> =>
      page.locator(`[data-testid="bar-panel"][data-column="${column}"] [data-testid="bar"]`).evaluateAll((els) =>
        els.map((e) => ({ top: (e as HTMLElement).offsetTop, g: e.getAttribute('data-group')!, v: e.getAttribute('data-value')! })).sort((a, b) => a.top - b.top).map((r) => [r.g, r.v] as [string, string]),
      );
    for (const column of ['firstPrice', 'sumVolume']) {
      const bars = await ordered(column);
      expect(bars, column).toHaveLength(20);
      // every panel holds each group's exact value
      for (const [g, v] of bars) expect(v, `${column} ${g}`).toBe(String(payload.find((r) => r['instrumentID'] === g)![column]));
    }
    // sorted by the first panel's value, largest first, and every panel in that order
    const first = await ordered('firstPrice');
    const values = first.map(([, v]) => Number(v));
    expect(values).toEqual([...values].sort((a, b) => b - a));
    expect((await ordered('sumVolume')).map(([g]) => g)).toEqual(first.map(([g]) => g));
    // a panel's title sorts by it; the toggle puts the key order back
    await page.click('[data-testid="bar-panel-head"]:has-text("sumVolume")');
    const byVolume = (await ordered('sumVolume')).map(([, v]) => Number(v));
    expect(byVolume).toEqual([...byVolume].sort((a, b) => b - a));
    await page.click('[data-testid="bar-sort-key"]');
    const keys = (await ordered('firstPrice')).map(([g]) => g);
    expect(keys).toEqual([...keys].sort());
    // no float noise: the labels are in the grid's format
    expect(await page.locator('[data-testid="bar-panel"][data-column="sumVolume"] .bar-value').allTextContents()).toEqual(
      keys.map((g) => Number(payload.find((r) => r['instrumentID'] === g)!['sumVolume']).toLocaleString('en-US')),
    );
    // hover: the exact value; click: the group's row is selected in the grid
    const bar = page.locator('[data-testid="bar-panel"][data-column="lastPrice"] [data-testid="bar"][data-group="MSFT"]');
    await bar.hover();
    await expect.poll(() => page.locator('[data-testid="bar-tip-value"]').textContent()).toBe(String(payload.find((r) => r['instrumentID'] === 'MSFT')!['lastPrice']));
    await bar.click();
    await expect.poll(() => bar.getAttribute('class')).toContain('selected');
    await expect.poll(() => page.locator('[data-testid="grid"] .grid-row.selected').textContent()).toContain('MSFT');
    // the grid sorted by a header: a row picked there is picked on the bars too, and the grid stays sorted
    await page.click('[data-testid="grid"] [data-col="sumVolume"] .grid-hname');
    await expect.poll(() => page.locator('[data-testid="grid-sort-sumVolume"]').count()).toBe(1);
    // (a row of another group than the one selected: the bars must move to it)
    const ascending = [...payload].sort((a, b) => Number(a['sumVolume']) - Number(b['sumVolume'])).map((r) => r['instrumentID'] as string);
    const at = ascending.findIndex((g) => g !== 'MSFT');
    const picked = ascending[at]!;
    await expect.poll(() => page.locator(`[data-testid="grid"] [data-row="${at}"]`).textContent()).toContain(picked);
    await page.click(`[data-testid="grid"] [data-row="${at}"]`);
    await expect.poll(() => page.locator(`[data-testid="bar-panel"][data-column="lastPrice"] [data-testid="bar"][data-group="${picked}"]`).getAttribute('class')).toContain('selected');
    expect(await page.locator('[data-testid="grid-sort-sumVolume"]').count()).toBe(1);
    await page.click('[data-testid="grid"] [data-col="sumVolume"] .grid-hname');
    await page.click('[data-testid="grid"] [data-col="sumVolume"] .grid-hname');
    await page.click('[data-testid="bar-sort-value"]');
    await shots('bars', () => page.locator('[data-testid="bar-panel"][data-column="sumVolume"] [data-testid="bar"]').nth(3).hover());
  });
});
