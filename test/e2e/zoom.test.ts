/**
 * Zoom and pan on the tick chart (issue 31) in Chromium, on a day of one instrument's ticks: the wheel
 * zooms 1.25× a notch about the pointer down to a floor of 20 ticks; a range dragged on the time axis
 * (or Shift+dragged on the plot) lands on the ticks the crosshair named at its ends, and Escape drops
 * it; a plain drag still pans; the 5m preset shows 5 minutes; reset shows every tick; + − = 0 on the
 * focused chart; hovering a grid row marks its tick on the chart and the chart's crosshair marks its
 * grid row. What is in view is read from the toolbar's view readout (its data attributes: the
 * first and last tick in view and their times). Screenshots at 1280×800 and 1600×1000 in test-results/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, callPayload, openApp, runLinked, settled, shotsAtSizes } from './harness.js';
import { describeOverflow, overflowingText } from './overflow.js';

let app: App;
let page: Page;
const DAY = '2024.03.06';
const ARGS = { table: 'Trade', startTS: `${DAY}D00:00:00`, endTS: `${DAY}D23:59:59`, idList: ['AAPL'], columns: ['instrumentID', 'price', 'volume'] };
const FLOOR = 20;

beforeAll(async () => {
  app = await openApp(['--days', '1', '--instruments', '4', '--trades-per-day', '20000'], 'tickscope-zoom-');
  page = app.page;
});

afterAll(async () => app?.close());

interface InView {
  readonly first: number;
  readonly last: number;
  readonly count: number;
  readonly firstTime: string;
  readonly lastTime: string;
}

/** What the toolbar says is in view. */
async function inView(): Promise<InView> {
  const el = page.locator('[data-testid="chart-view"]');
  const [first, last, firstTime, lastTime] = await Promise.all(['data-first', 'data-last', 'data-first-time', 'data-last-time'].map((a) => el.getAttribute(a)));
  return { first: Number(first), last: Number(last), count: Number(last) - Number(first) + 1, firstTime: firstTime!, lastTime: lastTime! };
}

const count = async (): Promise<number> => (await inView()).count;

/** The plot's and the time axis' boxes (page CSS px): the pane's canvas and the axis' under it. */
async function geometry(): Promise<{ plot: { x: number; y: number; width: number; height: number }; axis: { x: number; y: number; width: number; height: number } }> {
  return page.evaluate(() => {
    const rows = [...document.querySelectorAll('[data-testid="chart"] table tr')];
    const widest = (tr: Element): DOMRect => [...tr.querySelectorAll('canvas')].map((c) => c.getBoundingClientRect()).sort((a, b) => b.width - a.width)[0]!;
    const p = widest(rows[0]!);
    const a = widest(rows[rows.length - 1]!);
    return { plot: { x: p.x, y: p.y, width: p.width, height: p.height }, axis: { x: a.x, y: a.y, width: a.width, height: a.height } };
  });
}

/** The time the readout shows with the crosshair at x over the plot. */
async function timeAt(x: number): Promise<string> {
  const { plot } = await geometry();
  await page.mouse.move(x, plot.y + plot.height * 0.5);
  const t = page.locator('[data-testid="chart-readout-time"]');
  await expect.poll(() => t.textContent()).not.toBe('');
  await page.waitForTimeout(30);
  return (await t.textContent())!;
}

/** ISO-like local text "2024-03-06 09:30:00.123456789" to ns (as UTC: only differences are used). */
function ns(text: string): bigint {
  const [date, time] = text.replace('T', ' ').split(' ') as [string, string];
  const [hms, frac = ''] = time.split('.') as [string, string?];
  return BigInt(Date.parse(`${date}T${hms}Z`)) * 1_000_000n + BigInt(frac.padEnd(9, '0'));
}

describe('zoom and pan on the tick chart', () => {
  let total = 0;
  let times: bigint[] = [];

  it('charts a day of one instrument, all in view', async () => {
    await runLinked(app, 'getTicks', ARGS);
    times = callPayload(app.db, JSON.stringify(ARGS)).map((r) => ns(String(r['eventTimestamp'])));
    total = times.length;
    expect(total).toBeGreaterThan(1_000);
    await page.waitForSelector('[data-testid="chart-view"]');
    await expect.poll(count).toBe(total);
    expect(await page.locator('[data-testid="chart-view"]').textContent()).toContain('all in view');
  });

  it('(a) the wheel zooms 1.25× a notch about the pointer, down to the floor and never past it', async () => {
    const { plot } = await geometry();
    const x = plot.x + plot.width * 0.4;
    await page.mouse.move(x, plot.y + plot.height * 0.5);
    const under = await timeAt(x);
    let expected = total;
    for (let k = 1; k <= 40; k++) {
      await page.mouse.wheel(0, -100);
      expected = Math.max(FLOOR, expected / 1.25);
      const want = expected;
      await expect.poll(count, { message: `after ${k} notches` }).toSatisfy((c: number) => Math.abs(c - want) <= 2 && c >= FLOOR);
      if (k === 10) {
        // zoomed about the pointer: the tick under it is still (within a tick) under it
        const here = ns(await timeAt(x));
        const iUnder = times.findIndex((t) => t === ns(under));
        const iHere = times.findIndex((t) => t === here);
        expect(Math.abs(iHere - iUnder)).toBeLessThanOrEqual(2);
      }
    }
    expect(await count()).toBe(FLOOR);
    // more notches stay on the floor
    for (let k = 0; k < 5; k++) await page.mouse.wheel(0, -100);
    await settled(page);
    expect(await count()).toBe(FLOOR);
    // and out again to all, no further
    for (let k = 0; k < 45; k++) await page.mouse.wheel(0, 100);
    await expect.poll(count).toBe(total);
  });

  it('(b) a range dragged on the time axis lands on the ticks at its ends; Escape drops it; Shift+drag on the plot too; a plain drag pans', async () => {
    const { axis, plot } = await geometry();
    const x1 = axis.x + axis.width * 0.3;
    const x2 = axis.x + axis.width * 0.62;
    const t1 = await timeAt(x1);
    const t2 = await timeAt(x2);
    const y = axis.y + axis.height / 2;

    // Escape while dragging: nothing changes
    await page.mouse.move(x1, y);
    await page.mouse.down();
    await page.mouse.move(x2, y, { steps: 4 });
    await expect.poll(() => page.locator('[data-testid="zoom-band"]').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await page.mouse.up();
    expect(await page.locator('[data-testid="zoom-band"]').isVisible()).toBe(false);
    await settled(page);
    expect(await count()).toBe(total);

    await page.mouse.move(x1, y);
    await page.mouse.down();
    await page.mouse.move(x2, y, { steps: 6 });
    const band = (await page.locator('[data-testid="zoom-band"]').boundingBox())!;
    expect(band.x).toBeCloseTo(x1, -1);
    expect(band.x + band.width).toBeCloseTo(x2, -1);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-zoom-dragging-1440.png') });
    await page.mouse.up();
    await expect.poll(() => inView().then((v) => [v.firstTime, v.lastTime])).toEqual([t1, t2]);

    // Shift+drag on the plot, right to left, inside the zoomed view
    const s1 = plot.x + plot.width * 0.7;
    const s2 = plot.x + plot.width * 0.2;
    const u1 = await timeAt(s1);
    const u2 = await timeAt(s2);
    await page.keyboard.down('Shift');
    await page.mouse.move(s1, plot.y + plot.height * 0.5);
    await page.mouse.down();
    await page.mouse.move(s2, plot.y + plot.height * 0.5, { steps: 6 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await expect.poll(() => inView().then((v) => [v.firstTime, v.lastTime])).toEqual([u2, u1]);

    // a plain drag on the plot pans: the same number of ticks (within one), later ones
    const before = await inView();
    await page.mouse.move(plot.x + plot.width * 0.6, plot.y + plot.height * 0.5);
    await page.mouse.down();
    await page.mouse.move(plot.x + plot.width * 0.3, plot.y + plot.height * 0.5, { steps: 6 });
    await page.mouse.up();
    await expect.poll(() => inView().then((v) => v.first)).toBeGreaterThan(before.first);
    expect(Math.abs((await count()) - before.count)).toBeLessThanOrEqual(1);

    // a sideways wheel (a swipe, Shift+wheel) pans too
    const panned = await inView();
    await page.mouse.move(plot.x + plot.width * 0.5, plot.y + plot.height * 0.5);
    await page.mouse.wheel(-200, 0);
    await expect.poll(() => inView().then((v) => v.first)).toBeLessThan(panned.first);
    expect(Math.abs((await count()) - panned.count)).toBeLessThanOrEqual(1);
  });

  it('(c) the 5m preset shows 5 minutes ending at the last tick in view, within a tick', async () => {
    await page.click('[data-testid="zoom-reset"]');
    await expect.poll(count).toBe(total);
    await page.click('[data-testid="zoom-5m"]');
    await expect.poll(count).toBeLessThan(total);
    const v = await inView();
    expect(v.last).toBe(total - 1);
    expect(ns(v.firstTime)).toBe(times[v.first]);
    expect(ns(v.lastTime)).toBe(times[v.last]);
    const FIVE = 300_000_000_000n;
    const MS = 1_000_000n; // spans are searched on millisecond times
    expect(times[v.last]! - times[v.first]!).toBeLessThanOrEqual(FIVE + MS);
    // one tick more would pass 5 minutes: the span is 5 minutes less at most one tick's gap
    expect(times[v.last]! - times[v.first - 1]!).toBeGreaterThan(FIVE - MS);
    expect(await page.locator('[data-testid="chart-view"]').textContent()).toMatch(/· 4m 59s|· 5m 00s/);
    await shotsAtSizes(page, 'e2e-zoom-5m', async () => {
      const { plot } = await geometry();
      await page.mouse.move(plot.x + plot.width * 0.5, plot.y + plot.height * 0.45);
      // a resize keeps the ticks in view (not the spacing of their slots)
      expect(await inView()).toEqual(v);
    });
    const found = (await overflowingText(page)).map(describeOverflow);
    expect(found).toEqual([]);
  });

  it('(d) reset shows every tick', async () => {
    await page.click('[data-testid="zoom-1m"]');
    await expect.poll(count).toBeLessThan(total);
    await page.click('[data-testid="zoom-reset"]');
    await expect.poll(count).toBe(total);
    expect((await inView()).first).toBe(0);
  });

  it('(e) + and = zoom in, − out, about the centre, 0 resets, on the focused chart', async () => {
    const { plot } = await geometry();
    await page.mouse.click(plot.x + plot.width * 0.5, plot.y + plot.height * 0.5);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('chart');
    await page.keyboard.press('+');
    await expect.poll(count).toSatisfy((c: number) => Math.abs(c - total / 1.25) <= 2);
    await page.keyboard.press('=');
    await expect.poll(count).toSatisfy((c: number) => Math.abs(c - total / 1.25 ** 2) <= 2);
    // about the centre: the middle tick stays in the middle
    const v = await inView();
    expect(Math.abs((v.first + v.last) / 2 - (total - 1) / 2)).toBeLessThanOrEqual(2);
    await page.keyboard.press('-');
    await expect.poll(count).toSatisfy((c: number) => Math.abs(c - total / 1.25) <= 2);
    await page.keyboard.press('=');
    await page.keyboard.press('=');
    await page.keyboard.press('0');
    await expect.poll(count).toBe(total);
    await shotsAtSizes(page, 'e2e-zoom-all');
  });

  it('(f) the crosshair links chart and grid both ways: a grid row marks its tick (brought into view), the chart marks its row', async () => {
    // zoomed to the day's last minute, the grid's first rows are out of view
    await page.click('[data-testid="zoom-1m"]');
    await expect.poll(count).toBeLessThan(total);
    // (the grid back at its top: the click in (e) selected a row mid-day and scrolled there)
    await page.locator('[data-testid="grid"] .grid-scroll, [data-testid="grid"].grid-scroll').first().evaluate((el) => (el.scrollTop = 0));
    const row = page.locator('[data-testid="grid"] [data-row="5"]');
    await row.hover();
    const readout = page.locator('[data-testid="chart-readout"]');
    await expect.poll(() => readout.textContent()).toContain('row 6');
    const cellTime = (await row.locator('[role="gridcell"]').first().textContent())!.replace('T', ' ');
    expect(await page.locator('[data-testid="chart-readout-time"]').textContent()).toBe(cellTime);
    const v = await inView();
    expect(v.first).toBeLessThanOrEqual(5);
    expect(v.last).toBeGreaterThanOrEqual(5);
    expect(v.count).toBeLessThan(total / 10); // the zoom is kept, only moved
    await shotsAtSizes(page, 'e2e-zoom-grid-hover', () => row.hover());

    // the pointer over the chart marks its row in the grid
    await page.click('[data-testid="zoom-reset"]');
    await expect.poll(count).toBe(total);
    const { plot } = await geometry();
    await page.mouse.move(plot.x + 2, plot.y + plot.height * 0.5);
    await expect.poll(() => page.locator('[data-testid="grid"] .grid-row.crosshair').count()).toBe(1);
    const marked = Number(await page.locator('[data-testid="grid"] .grid-row.crosshair').getAttribute('data-row'));
    expect(await readout.textContent()).toContain(`row ${marked + 1}`);
    // leaving the chart clears the mark
    await page.mouse.move(1, 1);
    await expect.poll(() => page.locator('[data-testid="grid"] .grid-row.crosshair').count()).toBe(0);
  });
});
