/**
 * End to end, as a user: a demo database made by the CLI, `tickscope serve` started as a process,
 * Debian's Chromium driven by Playwright. Fill the form, run, see the chart paint and the grid fill,
 * export the CSV and compare it row for row with what `tickscope call` prints.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, callPayload, openApp, paintedPixels } from './harness.js';

let app: App;
let page: Page;

beforeAll(async () => {
  app = await openApp(['--days', '2', '--instruments', '6', '--trades-per-day', '20000'], 'tickscope-e2e-');
  page = app.page;
});

afterAll(async () => app?.close());

const asText = (v: unknown): string => (v === null ? '' : Array.isArray(v) ? JSON.stringify(v) : String(v));

describe('the app in a browser', () => {
  it('runs a query from the form: chart painted, grid filled, CSV equal to tickscope call', async () => {
    await page.selectOption('[data-testid="arg-table"]', 'Trade');
    await page.fill('[data-testid="arg-startTS"]', '2024.03.06D14:30:00');
    await page.fill('[data-testid="arg-endTS"]', '2024.03.06D15:30:00');
    await page.fill('[data-testid="arg-idList"]', 'AAPL, MSFT');
    await page.fill('[data-testid="arg-columns"]', 'instrumentID, price, volume, conditions, exchTime');
    await page.keyboard.press('Control+Enter');
    const status = await page.waitForSelector('[data-testid="rows"]');
    const shown = Number((await status.textContent())!.split(' rows')[0]!.replace(/,/g, ''));

    const body = await page.locator('[data-testid="request-preview"]').textContent();
    const payload = callPayload(app.db, body!);
    expect(payload.length).toBeGreaterThan(100);
    expect(shown).toBe(payload.length);

    // The grid holds the first rows exactly as the payload renders them: numbers are shown in their
    // column's format (volume 60,400), the exact text in the cell's tooltip.
    await page.waitForFunction(() => !document.querySelector('[data-row="0"]')?.textContent?.includes('…'));
    const firstRow = await page.locator('[data-row="0"] .grid-cell').evaluateAll((cells) => cells.map((c) => c.getAttribute('title') ?? c.textContent));
    expect(firstRow).toEqual(['1', ...Object.values(payload[0]!).map(asText)]);
    expect(firstRow[1]).toMatch(/^2024-03-06T14:30:00\.\d{9}$/);

    // The chart has drawn the line and the bars.
    await page.waitForSelector('[data-testid="chart-info"]');
    await expect.poll(() => paintedPixels(page), { timeout: 10_000 }).toBeGreaterThan(2000);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-app.png') });

    // Export: a download of the whole result, equal to the call payload row for row.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export"]')]);
    const file = join(app.dir, 'export.csv');
    await download.saveAs(file);
    const records = parse(readFileSync(file, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(records).toHaveLength(payload.length);
    payload.forEach((row, i) => {
      expect(records[i], `row ${i}`).toEqual(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, asText(v)])));
    });
    // the status line follows the export (its progress polled by id) to its end
    await expect.poll(() => page.locator('[data-testid="notice"]').textContent()).toBe(`Downloaded ${download.suggestedFilename()} (${payload.length.toLocaleString('en-US')} rows)`);
    expect(await page.locator('[data-testid="exporting"]').count()).toBe(0);
  });

  it('shows the error of a bad request with its code', async () => {
    await page.fill('[data-testid="arg-startTS"]', '2024.03.06D15:30:00');
    await page.fill('[data-testid="arg-endTS"]', '2024.03.06D14:30:00');
    await page.click('[data-testid="run"]');
    await expect.poll(() => page.locator('[data-testid="error"]').textContent()).toBe('error 23: startTS >= endTS');
    await page.fill('[data-testid="arg-startTS"]', 'tomorrow');
    await page.click('[data-testid="run"]');
    await expect.poll(() => page.locator('[data-testid="error"]').textContent()).toMatch(/^error 4: startTS: "tomorrow" is not a timestamp/);
  });
});
