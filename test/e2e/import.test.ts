/**
 * Import… in the app (issue 30), in Chromium against `tickscope serve`: QuantConnect Lean-style trade
 * files (one CSV per symbol and day, no header, ms since midnight New York time, prices × 10,000, the
 * symbol in the folder's name, the date in the file's) mapped by form, previewed as read and as
 * mapped, imported with the table's rows then counted by the app; imported again, the re-import
 * choice, Skip writing nothing; and the browser's own files uploaded through the folder picker.
 * Screenshots of the dialog at 1280×800 and 1600×1000 go to test-results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, openApp, runLinked, shotsAtSizes } from './harness.js';
import { leanMap } from '../helpers/lean.js';

let app: App;
let page: Page;

/** Lean-style files: <root>/<symbol>/<day>_trade.csv, 5 rows each; AAPL's first at 486.99. */
function leanFiles(root: string, symbols: readonly string[], days: readonly string[]): string {
  symbols.forEach((sym, s) => {
    mkdirSync(join(root, sym), { recursive: true });
    days.forEach((day, d) => {
      const lines = Array.from({ length: 5 }, (_, i) => `${34_200_000 + i * 457},${4_869_900 + s * 100_000 + d * 1000 + i * 100},${100 * (i + 1)},NASDAQ`);
      writeFileSync(join(root, sym, `${day}_trade.csv`), `${lines.join('\n')}\n`);
    });
  });
  return root;
}

beforeAll(async () => {
  app = await openApp(['--days', '1', '--instruments', '4', '--trades-per-day', '2000'], 'tickscope-import-');
  page = app.page;
});

afterAll(async () => app?.close());

const shots = (name: string): Promise<void> => shotsAtSizes(page, `e2e-import-${name}`);
const tid = (id: string): string => `[data-testid="${id}"]`;

/** Trade's rows as the table list says them (its title: "Trade: 8,000 rows, ..."). */
async function tradeRows(): Promise<number> {
  const title = (await page.locator('.table-list button', { hasText: 'Trade' }).first().getAttribute('title')) ?? '';
  return Number(/^Trade: ([\d,]+) rows/.exec(title)![1]!.replace(/,/g, ''));
}

/** Maps the Lean layout by form: no header, New York, time from ms since midnight of the file's date, symbol from the folder. */
async function mapLean(): Promise<void> {
  await page.uncheck(tid('import-header'));
  await page.fill(tid('import-zone'), 'America/New_York');
  await page.keyboard.press('Tab');
  await page.selectOption(tid('import-col-eventTimestamp-from'), 'source');
  await page.selectOption(tid('import-col-eventTimestamp-source'), '0');
  await page.selectOption(tid('import-col-eventTimestamp-unit'), 'ms');
  await page.selectOption(tid('import-col-eventTimestamp-since'), 'midnight');
  expect(await page.inputValue(tid('import-col-eventTimestamp-date-path'))).toBe('{name}');
  await page.fill(tid('import-col-eventTimestamp-date-pattern'), '^(\\d{8})');
  await page.selectOption(tid('import-col-instrumentID-from'), 'path');
  expect(await page.inputValue(tid('import-col-instrumentID-path'))).toBe('{dir}');
  await page.selectOption(tid('import-col-instrumentID-case'), 'upper');
  await page.selectOption(tid('import-col-price-from'), 'source');
  await page.selectOption(tid('import-col-price-source'), '1');
  await page.fill(tid('import-col-price-scale'), '0.0001');
  await page.selectOption(tid('import-col-volume-from'), 'source');
  await page.selectOption(tid('import-col-volume-source'), '2');
}

/** The mapped preview's cell of a row and column. */
async function mappedCell(row: number, column: string): Promise<string> {
  const headers = await page.locator(`${tid('import-mapped')} th`).allTextContents();
  return (await page.locator(`${tid('import-mapped')} tr[data-row="${row}"] td`).nth(headers.indexOf(column)).textContent()) ?? '';
}

describe('Import… in the app', () => {
  it('maps Lean files by form, previews them, imports them, and asks before importing them again', async () => {
    const lean = leanFiles(join(app.dir, 'lean'), ['aapl', 'ibm', 'msft'], ['20131008', '20131009']);
    const before = await tradeRows();
    await page.selectOption(tid('connection'), '__import');
    await page.waitForSelector(tid('import-dialog'));
    await page.fill(tid('import-paths'), lean);
    await expect.poll(() => page.locator(tid('import-summary')).textContent()).toMatch(/^6 files · .* · first: .*\/aapl\/20131008_trade\.csv$/);
    await mapLean();
    // the rows as read (positions, no header) and as mapped: 09:30 New York on the file's date, ÷ 10,000
    await expect.poll(() => page.locator(`${tid('import-raw')} tr[data-row="0"] td`).allTextContents()).toEqual(['1', '34200000', '4869900', '100', 'NASDAQ']);
    await expect.poll(() => mappedCell(0, 'price')).toBe('486.99');
    expect(await mappedCell(0, 'eventTimestamp')).toBe('2013-10-08T09:30:00.000000000-04:00');
    expect(await mappedCell(1, 'eventTimestamp')).toBe('2013-10-08T09:30:00.457000000-04:00');
    expect(await mappedCell(0, 'instrumentID')).toBe('AAPL');
    // the command line and the mapping it reads
    await page.click('.import-cli summary');
    expect(await page.locator(tid('import-cli')).textContent()).toBe(`npx tickscope import --db ${app.db} --map mapping.json ${lean}`);
    const doc = JSON.parse((await page.locator(tid('import-json')).textContent())!) as Record<string, unknown>;
    expect(doc).toEqual(leanMap());
    await shots('dialog');

    await page.click(tid('import-submit'));
    await expect.poll(() => page.locator(tid('import-result')).textContent(), { timeout: 20_000 }).toBe('Imported 30 rows from 6 files into Trade · partitions 2013-10-08, 2013-10-09');
    await expect.poll(tradeRows).toBe(before + 30);

    // the same files again: nothing written until the user chooses
    await page.click(tid('import-submit'));
    await expect.poll(() => page.locator(tid('import-reimport')).textContent(), { timeout: 20_000 }).toMatch(/These rows were imported before: Trade 2013-10-08, Trade 2013-10-09 \(30 rows, .*\)\. Nothing was written\./);
    await shots('reimport');
    await page.click(tid('import-skip'));
    await expect.poll(() => page.locator(tid('import-result')).textContent(), { timeout: 20_000 }).toMatch(/30 rows skipped \(imported before\)/);
    expect(await tradeRows()).toBe(before + 30);
    await page.keyboard.press('Escape');
    await page.waitForSelector(tid('import-dialog'), { state: 'detached' });

    // the rows as the app queries them
    const rows = await runLinked(app, 'getTicks', { table: 'Trade', startTS: '2013.10.08D00:00:00', endTS: '2013.10.10D00:00:00', idList: ['AAPL'], columns: ['price', 'volume'] });
    expect(rows).toBe(10);
    await page.waitForFunction(() => !document.querySelector('[data-row="0"]')?.textContent?.includes('…'));
    const first = await page.locator('[data-row="0"] .grid-cell').evaluateAll((cells) => cells.map((c) => c.getAttribute('title') ?? c.textContent));
    expect(first).toContain('486.99');
  });

  it('uploads a folder picked in the browser, then imports what was uploaded', async () => {
    const picked = leanFiles(join(app.dir, 'picked', 'lean'), ['nvda'], ['20131010']);
    // a fresh page: nothing left open by the test before
    await page.reload();
    await page.waitForSelector('[data-testid="arg-table"] option[value="Trade"]', { state: 'attached' });
    const before = await tradeRows();
    await page.keyboard.press('Control+i');
    await page.waitForSelector(tid('import-dialog'));
    await page.setInputFiles(tid('import-upload-folder'), picked);
    await expect.poll(() => page.locator(tid('import-summary')).textContent(), { timeout: 10_000 }).toMatch(/^1 file · .* · first: .*\/uploads\/[\w-]+\/lean\/nvda\/20131010_trade\.csv$/);
    expect(await page.inputValue(tid('import-paths'))).toMatch(/\/uploads\/[\w-]+$/);
    await mapLean();
    await expect.poll(() => mappedCell(0, 'instrumentID')).toBe('NVDA');
    expect(await mappedCell(0, 'eventTimestamp')).toBe('2013-10-10T09:30:00.000000000-04:00');
    await shots('upload');
    await page.click(tid('import-submit'));
    await expect.poll(() => page.locator(tid('import-result')).textContent(), { timeout: 20_000 }).toBe('Imported 5 rows from 1 file into Trade · partitions 2013-10-10');
    await expect.poll(tradeRows).toBe(before + 5);
    // a file the import does not read is refused before it is sent
    const other = join(app.dir, 'notes');
    mkdirSync(other);
    writeFileSync(join(other, 'readme.txt'), 'x');
    await page.setInputFiles(tid('import-upload-files'), join(other, 'readme.txt'));
    await expect.poll(() => page.locator(tid('import-error')).textContent()).toBe('None of the 1 files is a CSV, Parquet or Arrow file');
  });

  it('makes a new table: columns from the source with types guessed, changed, one added for the symbol from the path', async () => {
    const lean = leanFiles(join(app.dir, 'lean3'), ['spy'], ['20131011']);
    await page.reload();
    await page.waitForSelector('[data-testid="arg-table"] option[value="Trade"]', { state: 'attached' });
    await page.keyboard.press('Control+i');
    await page.fill(tid('import-paths'), lean);
    await page.uncheck(tid('import-header'));
    await page.selectOption(tid('import-table'), '__new');
    await page.fill(tid('import-new-name'), 'LeanTrade');
    const types = (): Promise<string[]> => page.locator(`${tid('import-new-cols')} select[data-testid$="-type"]`).evaluateAll((s) => s.map((e) => (e as HTMLSelectElement).value));
    await expect.poll(types).toEqual(['long', 'long', 'long', 'symbol']);
    await page.selectOption(tid('import-new-col-0-type'), 'timestamp');
    await page.fill(tid('import-new-col-0-name'), 'time');
    await page.fill(tid('import-new-col-1-name'), 'price');
    await page.selectOption(tid('import-new-col-1-type'), 'float');
    await page.fill(tid('import-new-col-3-name'), 'exchange');
    await page.click(tid('import-new-col-add'));
    await page.fill(tid('import-new-col-4-name'), 'sym');
    await page.selectOption(tid('import-new-id'), 'sym');
    await page.fill(tid('import-zone'), 'America/New_York');
    await page.keyboard.press('Tab');
    await page.selectOption(tid('import-col-time-unit'), 'ms');
    await page.selectOption(tid('import-col-time-since'), 'midnight');
    await page.fill(tid('import-col-price-scale'), '0.0001');
    await page.selectOption(tid('import-col-sym-from'), 'path');
    await page.selectOption(tid('import-col-sym-case'), 'upper');
    await expect.poll(() => mappedCell(0, 'sym')).toBe('SPY');
    expect([await mappedCell(0, 'time'), await mappedCell(0, 'price'), await mappedCell(0, 'exchange')]).toEqual(['2013-10-11T09:30:00.000000000-04:00', '486.99', 'NASDAQ']);
    await shots('new-table');
    await page.click(tid('import-submit'));
    await expect.poll(() => page.locator(tid('import-result')).textContent(), { timeout: 20_000 }).toBe('Imported 5 rows from 1 file into LeanTrade · partitions 2013-10-11 · table created');
    await expect.poll(() => page.locator('.table-list .table-name').allTextContents()).toContain('LeanTrade');
    expect(await page.inputValue(tid('import-table'))).toBe('LeanTrade');
  });
});
