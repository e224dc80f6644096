/**
 * Issue 26: no text overflows its box in any view, at 1280×800 and 1600×1000. One app, every view
 * reached as a user reaches it (a request put in the form through the URL and run, then clicks and
 * keys): each operation's form and result (tick chart and grid, the quote table, the depth ladder,
 * candles, bar panels, the bucket ladder, the order summary, an order's drill-down and chart, the
 * generate view), the error panel, an empty result, history and saved queries, the command palette,
 * the shortcut list, the connection menu and its dialog, the grid's column menu, the status line
 * with a notice. The check is `overflowingText` (./overflow.ts, which states its rule). What it finds
 * goes to test-results/overflow-found.txt with a screenshot of the view (overflow-<view>-<width>.png);
 * OVERFLOW_SHOTS=1 takes one of every view.
 */
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, openApp, settled } from './harness.js';
import { describeOverflow, overflowingText } from './overflow.js';

let app: App;
let page: Page;
const DAY = '2024.03.06';
/** Screenshots of every view at each size with OVERFLOW_SHOTS=1 (to look at by eye); otherwise only of a view with a finding. */
const SHOTS = process.env['OVERFLOW_SHOTS'] === '1';
/** Every finding of the run, one a line (the assertions show only the first few). */
const FOUND = join(ARTIFACTS, 'overflow-found.txt');
const SIZES = [
  [1280, 800],
  [1600, 1000],
] as const;

beforeAll(async () => {
  app = await openApp(['--days', '2', '--instruments', '8', '--trades-per-day', '6000'], 'tickscope-overflow-');
  page = app.page;
  rmSync(FOUND, { force: true });
});

afterAll(async () => app?.close());

type Row = Record<string, unknown>;

/** Puts a request in the form through the URL (as a shared link does), and runs it unless told not to. */
async function open(op: string, args: Row, run = true): Promise<void> {
  await page.goto(`${app.url}#op=${op}&args=${encodeURIComponent(JSON.stringify(args))}`);
  await page.reload();
  await page.waitForSelector('[data-testid="arg-table"] option', { state: 'attached' });
  if (!run) return;
  await page.click('[data-testid="run"]');
  // the button is disabled while the run goes on (its text is no sign: "Running…" starts with "Run")
  await page.waitForFunction(() => (document.querySelector('[data-testid="run"]') as HTMLButtonElement | null)?.disabled === false);
  await page.waitForSelector('[data-testid="rows"], [data-testid="error-panel"], [data-testid="empty-panel"], [data-testid="generate-written"]');
}

/** Switches these arguments' editors to their builder. */
async function builders(...names: string[]): Promise<void> {
  for (const name of names) {
    await page.click(`[data-testid="arg-${name}-mode"] >> text=builder`);
    await page.locator(`[data-testid^="arg-${name}-row-"]`).first().waitFor();
  }
}

/** Moves the pointer over a fraction of an element's box (a crosshair, a readout at it). */
async function hover(sel: string, fx = 0.5, fy = 0.4): Promise<void> {
  const b = (await page.locator(sel).first().boundingBox())!;
  await page.mouse.move(b.x + b.width * fx, b.y + b.height * fy);
}

/** The overflows of the view at both sizes, one line each (`prepare` brings the view back after a resize). */
async function check(view: string, prepare?: () => Promise<void>): Promise<string[]> {
  const found: string[] = [];
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    await settled(page);
    await prepare?.();
    await settled(page);
    const here = (await overflowingText(page)).map((o) => `${view} @${width}×${height}: ${describeOverflow(o)}`);
    if (here.length > 0 || SHOTS) await page.screenshot({ path: join(ARTIFACTS, `overflow-${view}-${width}.png`) });
    found.push(...here);
  }
  if (found.length > 0) appendFileSync(FOUND, `${found.join('\n')}\n`);
  return found;
}

describe('the overflow check', () => {
  it('finds text cut, spilling or out of its box, and passes scrollers, hidden text and an ellipsis with a tooltip', async () => {
    const probe = await page.context().newPage();
    await probe.setViewportSize({ width: 800, height: 600 });
    await probe.setContent(`<body style="font: 12px/1.35 sans-serif; margin: 0">
      <div id="cut" style="width: 50px; overflow: hidden; white-space: nowrap">a long text that is cut</div>
      <div id="dots" style="width: 50px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis">an ellipsis and no tooltip</div>
      <div id="tip" style="width: 50px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis" title="an ellipsis and its tooltip">an ellipsis and its tooltip</div>
      <div title="a row: its cell's whole text"><span id="rowtip" style="display: block; width: 50px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis">its cell's whole text</span></div>
      <div title="a row saying something else"><span id="notip" style="display: block; width: 50px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis">a cell the row's tooltip lacks</span></div>
      <div id="spill" style="width: 50px; white-space: nowrap">spills out of its box</div>
      <div style="width: 60px; overflow: hidden"><span id="inner" style="white-space: nowrap">cut by its parent's box</span></div>
      <div style="display: flex; width: 60px"><span id="flex" style="white-space: nowrap">out of its flex row</span></div>
      <div id="tall" style="width: 50px; height: 16px; overflow: hidden">wraps onto lines it has no room for</div>
      <div style="width: 50px; overflow: auto; white-space: nowrap">scrolls on purpose, a list</div>
      <div style="width: 60px; height: 30px; overflow: hidden"><div style="margin-top: 40px">hidden below, on purpose</div></div>
      <div style="display: none">not drawn at all, however long it is</div>
      <span style="position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0)">screen readers only, a long doc</span>
      <details><summary>closed</summary><div style="width: 10px; white-space: nowrap">in a closed details element</div></details>
      <div style="width: 200px">wraps onto as many lines as it needs, with room for them all</div>
      <select id="sel" style="width: 60px"><option>a choice far wider than its select</option></select>
      <input id="val" style="width: 60px" value="a value wider than its field">
      <input id="ph" style="width: 60px" placeholder="a placeholder wider than its field">
      <input style="width: 200px" placeholder="fits">
    </body>`);
    const found = await overflowingText(probe);
    await probe.close();
    const by = Object.fromEntries(found.map((o) => [o.path.replace(/^\w+#/, ''), o.how]));
    expect(by).toEqual({ cut: 'scroll-x', dots: 'scroll-x', notip: 'scroll-x', spill: 'spill', inner: expect.stringMatching(/^cut by div/), flex: expect.stringMatching(/^out of div/), tall: 'scroll-y', sel: 'select', val: 'input', ph: 'placeholder' });
  });
});

describe('no text overflows its box, at 1280×800 and 1600×1000', () => {
  it('getTicks: the form with its builders, tick chart and grid, the column menu, a notice, the connection menu', async () => {
    const args = { table: 'Trade', startTS: `${DAY}D14:30:00`, endTS: `${DAY}D21:00:00`, idList: ['AAPL', 'MSFT', 'NVDA'], columns: ['instrumentID', 'price', 'volume', 'conditions', 'exchTime', 'sequenceNumber'], filter: [['>', 'price', '10'], ['in', 'conditions', ['@', 'F']], ['within', 'volume', ['1', '100000']]], sortCols: ['asc', 'instrumentID'], outputTZ: 'America/New_York', ref: ['Instrument'], refFilter: { Instrument: [['like', 'sector', 'Tech*']] } };
    await open('getTicks', args);
    // the builders, the densest rows of the form (a list from the URL opens as text)
    await builders('filter', 'refFilter');
    await page.waitForSelector('[data-testid="chart-readout"]');
    const found = await check('ticks', () => hover('[data-testid="chart"]'));
    // an export: its notice comes when the download has been written (checked last, meanwhile the menus)
    await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export"]')]);
    found.push(
      ...(await check('grid-menu', async () => {
        if ((await page.locator('[data-testid="grid-menu"]').count()) > 0) return;
        await page.hover('[data-testid="grid"] [data-col="price"]');
        await page.click('[data-testid="grid-menu-price"]');
        await page.locator('[data-testid="grid-menu"]').waitFor();
      })),
    );
    await page.keyboard.press('Escape');
    await page.locator('[data-testid="grid-menu"]').waitFor({ state: 'detached' });
    // the connection menu: its dialog, with the error of a gateway that does not answer
    await page.selectOption('[data-testid="connection"]', '__add');
    await page.locator('[data-testid="remote-dialog"]').waitFor();
    await page.fill('[data-testid="remote-dialog"] [name="baseUrl"]', 'http://127.0.0.1:9/servicegateway');
    await page.fill('[data-testid="remote-dialog"] [name="clientId"]', 'research-notebook-client');
    await page.fill('[data-testid="remote-dialog"] [name="clientSecret"]', 'secret');
    await page.click('[data-testid="remote-connect"]');
    await page.locator('[data-testid="remote-error"]').waitFor();
    found.push(...(await check('connection')));
    await page.keyboard.press('Escape');
    // the status line with the export's notice, "Downloaded getTicks_Trade_2024-03-06.csv (… rows)"
    await page.locator('[data-testid="notice"]').waitFor({ timeout: 15_000 });
    found.push(...(await check('notice')));
    expect(found).toEqual([]);
  });

  it('getTicks: the quote table and the depth ladder of OrderbookSnapshots', async () => {
    await open('getTicks', { table: 'Quote', startTS: `${DAY}D14:30:00`, endTS: `${DAY}D15:00:00`, idList: ['AAPL', 'MSFT'] });
    await page.waitForSelector('[data-testid="chart-readout"]');
    const found = await check('quotes', () => hover('[data-testid="chart"]', 0.3));
    await open('getTicks', { table: 'OrderbookSnapshots', startTS: `${DAY}D14:30:00`, endTS: `${DAY}D15:00:00`, idList: ['AAPL', 'MSFT'], orderbook: 'plotOrderbookSnapshots' });
    await page.waitForSelector('[data-testid="ladder-mid"]');
    found.push(...(await check('ladder')));
    expect(found).toEqual([]);
  });

  it('getStats: the form with an agg tree, candles, bar panels and the bucket ladder', async () => {
    const args = {
      table: 'Trade',
      startTS: `${DAY}D14:30:00`,
      endTS: `${DAY}D21:00:00`,
      idList: ['AAPL', 'MSFT', 'NVDA', 'GOOGL'],
      analytics: ['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume'],
      agg: { myVwap: ['wavg', 'volume', 'price'], notional: ['sum', ['*', 'price', 'volume']] },
      granularity: 15,
      granularityUnit: 'minute',
    };
    await open('getStats', args);
    await builders('agg');
    await page.waitForSelector('[data-testid="stats-chart"] canvas');
    const found = await check('stats-candles', () => hover('[data-testid="stats-chart"]'));
    await open('getStats', { table: 'Trade', startTS: `${DAY}D00:00:00`, endTS: '2024.03.08D00:00:00', analytics: ['firstPrice', 'lastPrice', 'sumVolume', 'avgPrice'], groupBy: ['instrumentID'] });
    await page.waitForSelector('[data-testid="bar-chart"]');
    found.push(...(await check('stats-bars', () => hover('[data-testid="bar-chart"] [data-testid="bar"]'))));
    await open('getStats', { table: 'OrderbookSnapshots', startTS: `${DAY}D14:30:00`, endTS: `${DAY}D16:00:00`, idList: ['AAPL', 'MSFT'], orderbook: 'plotOrderbookSnapshots', granularity: 5, granularityUnit: 'minute' });
    await page.waitForSelector('[data-testid="bucket-ladder"] [data-testid="ladder-mid"]');
    found.push(...(await check('stats-book', () => hover('[data-testid="stats-chart"]', 0.4))));
    expect(found).toEqual([]);
  });

  it('order analytics: generate, the summary grid and its charts, a group’s orders and an order’s chart', async () => {
    await open('generateOrderAnalytics', { table: 'Order', dt: DAY, regenExistingIDs: '1b' }, false);
    await expect.poll(() => page.locator('[data-testid="generate-held"]').textContent()).toContain('already holds');
    const found = await check('generate-form');
    await page.click('[data-testid="run"]');
    await page.locator('[data-testid="generate-written"]').waitFor();
    found.push(...(await check('generate-written')));
    await open('getOrderAnalyticSummary', { table: 'OrderAnalytics', startTS: `${DAY}D00:00:00`, endTS: '2024.03.08D00:00:00', groupBy: ['algoStrategy', 'side'] });
    await page.locator('[data-testid="tca-grid"] tbody tr[data-row]').first().click();
    await expect.poll(() => page.locator('[data-testid="tca-histogram"] rect.bar').count()).toBeGreaterThan(2);
    found.push(...(await check('orders-summary', () => hover('[data-testid="tca-markouts"]', 0.6, 0.5))));
    await page.click('[data-testid="tca-open-orders"]');
    await page.click('[data-testid="tca-orders"] [data-row="0"]');
    await expect.poll(() => page.locator('[data-testid="order-chart"] path.trade-line').count()).toBe(1);
    found.push(...(await check('orders-drill', () => hover('[data-testid="order-chart"]', 0.5, 0.5))));
    expect(found).toEqual([]);
  });

  it('the error panel and an empty result', async () => {
    await open('getTicks', { table: 'Trade', startTS: 'tomorrow', endTS: `${DAY}D16:00:00`, idList: ['AAPL'] });
    await page.waitForSelector('[data-testid="error-panel"]');
    const found = await check('error');
    await open('getTicks', { table: 'Trade', startTS: `${DAY}D03:00:00`, endTS: `${DAY}D03:01:00`, idList: ['AAPL', 'ZZZ'] });
    await page.waitForSelector('[data-testid="empty-panel"]');
    found.push(...(await check('empty')));
    expect(found).toEqual([]);
  });

  it('history and saved queries, the command palette and the shortcut list', async () => {
    await open('getOrderAnalyticSummary', { table: 'OrderAnalytics', startTS: `${DAY}D00:00:00`, endTS: '2024.03.08D00:00:00', groupBy: ['algoStrategy'] });
    await page.keyboard.press('Control+s');
    await page.fill('[data-testid="save-name"]', 'order summary by algo strategy over both demo days, all sides and venues');
    await page.click('[data-testid="save-query"]');
    await page.keyboard.press('Escape');
    const panel = (tab: 'history' | 'saved') => async (): Promise<void> => {
      if ((await page.locator('[data-testid="memory-panel"]').count()) === 0) await page.keyboard.press(tab === 'history' ? 'Control+h' : 'Control+s');
      await page.click(`[data-testid="memory-tab-${tab}"]`);
      await page.locator('[data-testid="memory-list"] li').first().waitFor();
    };
    const found = await check('history', panel('history'));
    found.push(...(await check('saved', panel('saved'))));
    await page.keyboard.press('Escape');
    found.push(
      ...(await check('palette', async () => {
        if ((await page.locator('[data-testid="command-palette"]').count()) === 0) await page.keyboard.press('Control+k');
        await page.fill('[data-testid="palette-search"]', 'o');
      })),
    );
    await page.keyboard.press('Escape');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    found.push(
      ...(await check('shortcuts', async () => {
        if ((await page.locator('[data-testid="keys-panel"]').count()) === 0) await page.keyboard.press('?');
        await page.locator('[data-testid="keys-panel"]').waitFor();
      })),
    );
    expect(found).toEqual([]);
  });
});
