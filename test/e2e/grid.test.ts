/**
 * The result grid in a browser, as a trader reads and copies a day of trades: prices in one number
 * of decimals, right-aligned; row numbers past 99,999 whole; Home and End moving the selection;
 * `#` and the time column frozen when scrolling sideways; headers whole; Shift+arrows and Ctrl+C
 * putting the selected rows on the (real) clipboard as TSV with a header, exact as the CSV has them
 * (in another outputTZ, timestamps with their offsets, as the CSV writes them).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tsvField } from '../../renderer/src/grid/tsv.js';
import { type App, ARTIFACTS, callPayload, CLI, openApp } from './harness.js';

let app: App;
let page: Page;
let rows = 0;

beforeAll(async () => {
  // one day of 120,000 trades: a result past 99,999 rows
  app = await openApp(['--days', '1', '--instruments', '4', '--trades-per-day', '120000'], 'tickscope-grid-');
  page = app.page;
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(app.url).origin });
  // every instrument: the form starts with the first one as a chip
  await page.click('[data-testid="arg-idList"]');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Control+Enter');
  const status = await page.waitForSelector('[data-testid="rows"]');
  rows = Number((await status.textContent())!.split(' rows')[0]!.replace(/,/g, ''));
  await page.waitForFunction(() => !document.querySelector('[data-row="0"]')?.textContent?.includes('…'));
});

afterAll(async () => app?.close());

/** Texts of one column's cells in the rows on screen (display order: # first). */
const columnTexts = (name: string): Promise<string[]> =>
  page.evaluate((n) => {
    const at = [...document.querySelectorAll('[data-testid="grid"] .grid-header > [role="columnheader"]')].findIndex((h) => h.getAttribute('data-col') === n);
    return [...document.querySelectorAll('[data-testid="grid"] [data-row]')].map((r) => r.children[at]?.textContent ?? '');
  }, name);

const selectedRows = (): Promise<number[]> =>
  page.$$eval('[data-testid="grid"] [data-row][aria-selected="true"]', (rs) => rs.map((r) => Number(r.getAttribute('data-row'))));

describe('the result grid', () => {
  it('shows a price column in one number of decimals, right-aligned, and headers whole', async () => {
    expect(rows).toBeGreaterThan(100_000);
    const prices = await columnTexts('price');
    expect(prices.length).toBeGreaterThan(10);
    const decimals = new Set(prices.map((p) => p.split('.')[1]?.length ?? 0));
    // demo tick sizes have 2 to 4 decimals: one of them for the whole column
    expect(decimals.size).toBe(1);
    expect([...decimals][0]).toBeGreaterThanOrEqual(2);
    const align = await page.$eval('[data-testid="grid"] [data-row="0"] .grid-cell.num', (c) => getComputedStyle(c).textAlign);
    expect(align).toBe('right');
    // sizes with separators; the cell's tooltip keeps the exact value
    const volumes = await columnTexts('volume');
    expect(volumes.some((v) => /^\d{1,3}(,\d{3})+$/.test(v))).toBe(true);
    // no header is cut: sequenceNumber reads whole
    const cut = await page.$$eval('[data-testid="grid"] .grid-hname', (hs) => hs.filter((h) => h.scrollWidth > h.clientWidth).map((h) => h.textContent));
    expect(cut).toEqual([]);
    expect(await page.locator('[data-testid="grid"] [data-col="sequenceNumber"] .grid-hname').textContent()).toBe('sequenceNumber');
  });

  it('End and Home move the selection to the last and first row; the last row number reads whole', async () => {
    await page.click('[data-testid="grid"] [data-row="2"]');
    await page.keyboard.press('End');
    await expect.poll(selectedRows).toEqual([rows - 1]);
    const last = page.locator(`[data-testid="grid"] [data-row="${rows - 1}"] .rownum`);
    await expect.poll(() => last.textContent()).toBe(rows.toLocaleString('en-US'));
    expect(await last.evaluate((c) => c.scrollWidth <= c.clientWidth)).toBe(true);
    // the selected row is on screen, not under the header or the scrollbar
    const grid = (await page.locator('[data-testid="grid"]').boundingBox())!;
    const row = (await page.locator(`[data-testid="grid"] [data-row="${rows - 1}"]`).boundingBox())!;
    expect(row.y + row.height).toBeLessThanOrEqual(grid.y + grid.height);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-grid-end.png') });

    await page.keyboard.press('Control+Home');
    await expect.poll(selectedRows).toEqual([0]);
    await page.keyboard.press('PageDown');
    const [paged] = await selectedRows();
    expect(paged).toBeGreaterThan(5);
    await page.keyboard.press('Home');
    await expect.poll(selectedRows).toEqual([0]);
  });

  it('keeps # and the time column in place when scrolling sideways', async () => {
    const grid = page.locator('[data-testid="grid"]');
    const before = (await grid.locator('.grid-header [data-col="eventTimestamp"]').boundingBox())!;
    await grid.evaluate((g) => (g.scrollLeft = g.scrollWidth));
    await expect.poll(() => grid.evaluate((g) => g.scrollLeft)).toBeGreaterThan(200);
    const after = (await grid.locator('.grid-header [data-col="eventTimestamp"]').boundingBox())!;
    expect(after.x).toBe(before.x);
    expect((await grid.locator('[data-row="0"] .grid-cell').nth(1).textContent())!).toMatch(/^2024-\d\d-\d\dT/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-grid-frozen.png') });
    await grid.evaluate((g) => (g.scrollLeft = 0));
  });

  it('copies the selected rows with Ctrl+C as TSV with a header, exactly as the CSV has them', async () => {
    await page.click('[data-testid="grid"] [data-row="3"]');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowUp');
    expect(await selectedRows()).toEqual([3, 4]);
    await page.keyboard.press('Control+c');
    await expect.poll(() => page.locator('[data-testid="notice"]').textContent()).toBe('Copied 2 rows as TSV with a header');
    const text = await page.evaluate(() => navigator.clipboard.readText());
    const body = (await page.locator('[data-testid="request-preview"]').textContent())!;
    const payload = callPayload(app.db, body).slice(3, 5);
    const asText = (v: unknown): string => (v === null ? '' : Array.isArray(v) ? JSON.stringify(v) : String(v));
    const expected = [Object.keys(payload[0]!).join('\t'), ...payload.map((r) => Object.values(r).map(asText).join('\t'))].join('\n');
    expect(text).toBe(`${expected}\n`);
    // Shift+click extends from the anchor too
    await page.click('[data-testid="grid"] [data-row="8"]', { modifiers: ['Shift'] });
    expect(await selectedRows()).toEqual([3, 4, 5, 6, 7, 8]);
  });

  it('copies New York times with their offsets, as the CSV export and tickscope call --format csv write them', async () => {
    const before = await page.locator('[data-testid="grid"] [data-row="0"] .grid-cell').nth(1).textContent();
    await page.fill('[data-testid="arg-outputTZ"]', 'America/New_York');
    await page.keyboard.press('Control+Enter');
    await page.waitForFunction((b) => {
      const t = document.querySelector('[data-testid="grid"] [data-row="0"] .grid-cell:nth-child(2)')?.textContent;
      return t && t !== b && !t.includes('…');
    }, before);
    // the grid shows wall-clock times (the views read them so); the copy carries the offsets
    expect(await page.locator('[data-testid="grid"] [data-row="0"] .grid-cell').nth(1).textContent()).toMatch(/^2024-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}$/);
    await page.click('[data-testid="grid"] [data-row="0"]');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Control+c');
    await expect.poll(() => page.locator('[data-testid="notice"]').textContent()).toBe('Copied 2 rows as TSV with a header');
    const text = await page.evaluate(() => navigator.clipboard.readText());
    const body = (await page.locator('[data-testid="request-preview"]').textContent())!;
    expect(JSON.parse(body)).toMatchObject({ outputTZ: 'America/New_York' });
    const csv = execFileSync(process.execPath, [CLI, 'call', '--db', app.db, '--format', 'csv', '.fsi.getTicks', body], { maxBuffer: 1 << 28 }).toString();
    const records = (parse(csv, { relax_column_count: false }) as string[][]).slice(0, 3);
    expect(text).toBe(records.map((r) => r.map(tsvField).join('\t')).join('\n') + '\n');
    expect(text.split('\n')[1]).toMatch(/^2024-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}-0[45]:00\t/);
  });
});
