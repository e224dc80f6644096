/**
 * getStats in a browser, as a user drives it: analytics chips and the agg builder (nested tree, text
 * switch), the request body equal to what `tickscope call` answers, candles per group with a legend
 * that hides groups from the keyboard, "no grouping", and the top of book whose depth ladder follows
 * the crosshair (mouse and arrow keys) with the book of that very bucket.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, CLI, openApp } from './harness.js';

let app: App;
let page: Page;
let day = '';

beforeAll(async () => {
  app = await openApp(['--days', '1', '--instruments', '6', '--trades-per-day', '10000'], 'tickscope-stats-');
  page = app.page;
  await page.click('nav.op-tabs >> text=getStats');
  await page.waitForSelector('[data-testid="arg-agg"]');
  day = (await page.inputValue('[data-testid="arg-startTS"]')).slice(0, 10);
});

afterAll(async () => app?.close());

type Row = Record<string, unknown>;

/** What `tickscope call` prints for a getStats body (the payload rows). */
function callStats(body: Row): Row[] {
  const out = execFileSync(process.execPath, [CLI, 'call', '--db', app.db, '.fsi.getStats', JSON.stringify(body)], { maxBuffer: 1 << 26 });
  return (JSON.parse(out.toString()) as { payload: Row[] }).payload;
}

const body = async (): Promise<Row> => JSON.parse((await page.locator('[data-testid="request-preview"]').textContent())!) as Row;

/** Runs the form and waits until the status line shows the rows `tickscope call` answers; returns them. */
async function runAndMatch(): Promise<Row[]> {
  const payload = callStats(await body());
  await page.click('[data-testid="run"]');
  await expect.poll(async () => (await page.locator('[data-testid="rows"]').textContent().catch(() => ''))?.split(' rows')[0]?.replace(/,/g, '')).toBe(String(payload.length));
  return payload;
}

/** A group's readout line: its exact values by name ("O" "168.94" ...). */
async function readout(group: string): Promise<Record<string, string>> {
  const items = page.locator(`[data-testid="stats-readout-line"][data-group="${group}"] [data-name]`);
  const pairs = await items.evaluateAll((els) => els.map((e) => [e.getAttribute('data-name')!, e.getAttribute('data-exact')!] as const));
  return Object.fromEntries(pairs);
}

/** The bucket under the crosshair as the payload writes it (outputTZ UTC here). */
async function bucket(): Promise<string> {
  const label = (await page.locator('[data-testid="stats-bucket"]').textContent())!;
  const m = /(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{9})/.exec(label)!;
  return `${m[1]}T${m[2]}`;
}

async function hoverChart(fraction: number): Promise<void> {
  const box = (await page.locator('[data-testid="stats-chart"]').boundingBox())!;
  await page.mouse.move(box.x + box.width * fraction, box.y + box.height * 0.3);
}

describe('getStats in the browser', () => {
  it('builds analytics and agg trees; candles per group match tickscope call; the legend hides groups', async () => {
    await page.fill('[data-testid="arg-startTS"]', `${day}D14:30`);
    await page.fill('[data-testid="arg-endTS"]', `${day}D16:00`);
    await page.click('[data-testid="arg-analytics"]');
    await page.keyboard.type('firstpr');
    await expect.poll(() => page.locator('#arg-analytics-list [role="option"]').first().textContent()).toBe('firstPricefirst of price');
    await page.keyboard.press('Enter');
    await page.keyboard.insertText('maxPrice, minPrice, lastPrice, sumVolume,');
    await page.keyboard.press('Escape');
    // agg: vwap by hand, then a nested tree (turnover), checked in text mode and back.
    await page.click('[data-testid="arg-agg-add"]');
    await page.selectOption('[data-testid="arg-agg-0-op"]', 'wavg');
    await expect.poll(() => page.locator('[data-testid="arg-agg-row-0"]').textContent()).toContain('choose a column, a number or i');
    await page.selectOption('[data-testid="arg-agg-0-col-1"]', 'volume');
    await page.selectOption('[data-testid="arg-agg-0-col-2"]', 'price');
    await page.fill('[data-testid="arg-agg-name-0"]', 'myVwap');
    await page.click('[data-testid="arg-agg-add"]');
    await page.selectOption('[data-testid="arg-agg-1-op"]', 'sum');
    await page.selectOption('[data-testid="arg-agg-1-kind-1"]', 'tree');
    await page.selectOption('[data-testid="arg-agg-1-op-1"]', '*');
    await page.selectOption('[data-testid="arg-agg-1-col-1-2"]', 'volume');
    await page.fill('[data-testid="arg-agg-name-1"]', 'notional');
    const agg = { myVwap: ['wavg', 'volume', 'price'], notional: ['sum', ['*', 'price', 'volume']] };
    expect((await body())['agg']).toEqual(agg);
    await page.click('[data-testid="arg-agg-mode"] >> text=text');
    expect(JSON.parse(await page.inputValue('[data-testid="arg-agg-text"]'))).toEqual(agg);
    await page.click('[data-testid="arg-agg-mode"] >> text=builder');
    await expect.poll(() => page.locator('[data-testid^="arg-agg-row-"]').count()).toBe(2);
    await page.selectOption('[data-testid="arg-granularityUnit"]', 'minute');
    await page.fill('[data-testid="arg-granularity"]', '15');
    expect(await page.locator('[data-testid="arg-granularityUnit-hint"]').textContent()).toContain('about 6 buckets per group');

    const payload = await runAndMatch();
    const ids = [...new Set(payload.map((r) => r['instrumentID'] as string))].sort();
    await page.waitForSelector('[data-testid="stats-chart"] canvas');
    expect(await page.locator('[data-testid="group-legend"] .legend-item:not(.all)').allTextContents()).toEqual(ids);
    expect(await page.locator('[data-testid="stats-info"]').textContent()).toBe(`6 buckets × ${ids.length} groups`);

    // Keyboard: Tab to the first legend button, Space hides it; Shift+click shows one alone.
    await page.locator(`[data-testid="legend-${ids[0]}"]`).focus();
    await page.keyboard.press('Space');
    expect(await page.getAttribute(`[data-testid="legend-${ids[0]}"]`, 'aria-pressed')).toBe('false');
    await page.click(`[data-testid="legend-${ids[1]}"]`, { modifiers: ['Shift'] });
    expect(await page.locator('.legend-item[aria-pressed="true"]').allTextContents()).toEqual([ids[1]]);

    // The readout at the crosshair holds the shown group's row of the payload, exactly.
    await hoverChart(0.5);
    await expect.poll(() => page.locator('[data-testid="stats-readout-line"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-group')))).toEqual([ids[1]]);
    const at = await bucket();
    const expected = payload.find((r) => r['instrumentID'] === ids[1] && r['eventTimestamp'] === at)!;
    const shown = await readout(ids[1]!);
    expect(Number(shown['O'])).toBe(expected['firstPrice']);
    expect(Number(shown['C'])).toBe(expected['lastPrice']);
    expect(Number(shown['myVwap'])).toBe(expected['myVwap']);
    expect(Number(shown['sumVolume'])).toBe(expected['sumVolume']);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-stats-candles.png') });
  });

  it('"no grouping" sends groupBy [] and charts one group', async () => {
    await page.click('[data-testid="arg-groupBy-none"]');
    expect((await body())['groupBy']).toEqual([]);
    const payload = await runAndMatch();
    expect(payload).toHaveLength(6);
    expect(Object.keys(payload[0]!)).not.toContain('instrumentID');
    await expect.poll(() => page.locator('[data-testid="group-legend"] .legend-item').allTextContents()).toEqual(['all']);
    await page.click('[data-testid="arg-groupBy-none"]');
    expect((await body())['groupBy']).toBeUndefined();
  });

  it('top of book: the ladder follows the crosshair and shows that bucket’s book', async () => {
    await page.selectOption('[data-testid="arg-table"]', 'OrderbookSnapshots');
    await page.click('[data-testid="arg-analytics"]');
    for (let i = 0; i < 5; i++) await page.keyboard.press('Backspace');
    await page.keyboard.press('Escape');
    await page.click('[data-testid="arg-agg-row-1"] [aria-label^="remove"]');
    await page.click('[data-testid="arg-agg-row-0"] [aria-label^="remove"]');
    await page.selectOption('[data-testid="arg-orderbook"]', 'plotOrderbookSnapshots');
    await page.fill('[data-testid="arg-granularity"]', '5');
    const payload = await runAndMatch();
    await page.waitForSelector('[data-testid="bucket-ladder"] [data-testid="ladder-mid"]');
    expect(await page.locator('.legend-item[aria-pressed="true"]').count()).toBe(1);
    const id = (await page.locator('.legend-item[aria-pressed="true"]').textContent())!;

    const check = async (): Promise<void> => {
      const at = await bucket();
      const row = payload.find((r) => r['instrumentID'] === id && r['eventTimestamp'] === at)!;
      await expect.poll(() => page.locator('[data-testid="bucket-ladder-bucket"]').textContent()).toContain(at.replace('T', ' '));
      await expect.poll(async () => Number(await page.locator('[data-testid="bucket-ladder-bid"]').textContent()), { timeout: 5000 }).toBeCloseTo(row['bestBid'] as number, 6);
      expect(Number((await readout(id))['bestBid'])).toBe(row['bestBid']);
      const snapTime = (await page.locator('[data-testid="bucket-ladder-time"]').textContent())!;
      const end = new Date(Date.parse(`${at.slice(0, 19)}Z`) + 300_000).toISOString().slice(0, 19);
      expect(snapTime >= at && snapTime.slice(0, 19) < end, `${snapTime} in [${at}, ${end})`).toBe(true);
    };
    await hoverChart(0.3);
    await check();
    // Click pins the bucket; arrow keys step it, and the ladder follows.
    await page.mouse.down();
    await page.mouse.up();
    const pinned = await bucket();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.locator('[data-testid="stats-bucket"]').textContent()).toMatch(/^pinned/);
    expect(await bucket()).not.toBe(pinned);
    await page.mouse.move(0, 0);
    await check();
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-stats-book.png') });
  });
});
