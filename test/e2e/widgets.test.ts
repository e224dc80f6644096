/**
 * The form's widgets in a browser, as a user drives them with the keyboard and mouse: the identifier
 * multi-select, the filter builder and its text form, the sortCols builder, and the depth ladder of
 * a plotOrderbookSnapshots result. The request body shown is what is sent, and what `tickscope call`
 * answers for it is what the app shows.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, callPayload, openApp } from './harness.js';

let app: App;
let page: Page;

beforeAll(async () => {
  app = await openApp(['--days', '1', '--instruments', '6', '--trades-per-day', '10000'], 'tickscope-widgets-');
  page = app.page;
});

afterAll(async () => app?.close());

const body = async (): Promise<Record<string, unknown>> => JSON.parse((await page.locator('[data-testid="request-preview"]').textContent())!) as Record<string, unknown>;

function callRows(request: Record<string, unknown>): number {
  return callPayload(app.db, JSON.stringify(request)).length;
}

/** Runs the form's request and waits until the app shows as many rows as `tickscope call` answers for it. */
async function runAndCount(): Promise<number> {
  const expected = callRows(await body());
  await page.click('[data-testid="run"]');
  const shown = async (): Promise<number | null> => {
    const text = await page.locator('[data-testid="rows"]').textContent({ timeout: 1000 }).catch(() => null);
    return text === null ? null : Number(text.split(' rows')[0]!.replace(/,/g, ''));
  };
  await expect.poll(shown).toBe(expected);
  return expected;
}

describe('form widgets in the browser', () => {
  it('identifier multi-select: search and Enter, paste a list, Backspace removes the last', async () => {
    const day = (await page.inputValue('[data-testid="arg-startTS"]')).slice(0, 10);
    await page.fill('[data-testid="arg-startTS"]', `${day}D14:30`);
    await page.fill('[data-testid="arg-endTS"]', `${day}D15:30`);
    const ids = page.locator('[data-testid="arg-idList"]');
    await ids.click();
    expect((await body())['idList']).toEqual(['AAPL']);
    await page.keyboard.type('ms');
    await expect.poll(() => page.locator('#arg-idList-list [role="option"]').first().textContent()).toBe('MSFT');
    await page.keyboard.press('Enter');
    await page.keyboard.insertText('GOOGL, NVDA,');
    expect((await body())['idList']).toEqual(['AAPL', 'MSFT', 'GOOGL', 'NVDA']);
    await page.keyboard.press('Backspace');
    expect((await body())['idList']).toEqual(['AAPL', 'MSFT', 'GOOGL']);
    expect(await page.locator('.chips .chip').allTextContents()).toEqual(['AAPL×', 'MSFT×', 'GOOGL×']);
    expect(await runAndCount()).toBeGreaterThan(50);
  });

  it('filter builder: rows become the list form; the text switch gives the same rows', async () => {
    await page.click('[data-testid="arg-filter-add"]');
    await page.selectOption('[data-testid="arg-filter-col-0"]', 'price');
    await page.selectOption('[data-testid="arg-filter-fn-0"]', '>');
    await page.fill('[data-testid="arg-filter-value-0"]', '150');
    await page.click('[data-testid="arg-filter-add"]');
    await page.selectOption('[data-testid="arg-filter-col-1"]', 'conditions');
    await page.selectOption('[data-testid="arg-filter-fn-1"]', 'in');
    await page.fill('[data-testid="arg-filter-value-1"]', '@, F');
    await page.click('[data-testid="arg-filter-add"]');
    await page.selectOption('[data-testid="arg-filter-col-2"]', 'volume');
    await page.selectOption('[data-testid="arg-filter-fn-2"]', 'within');
    await page.fill('[data-testid="arg-filter-value-2"]', '100');
    await page.fill('[data-testid="arg-filter-value-2-2"]', '1000');
    expect((await body())['filter']).toEqual([['>', 'price', '150'], ['in', 'conditions', ['@', 'F']], ['within', 'volume', ['100', '1000']]]);
    const listRows = await runAndCount();
    expect(listRows).toBeGreaterThan(0);

    await page.click('[data-testid="arg-filter-mode"] >> text=text');
    expect(await page.inputValue('[data-testid="arg-filter-text"]')).toBe('price>150;conditions=@|F;volume>=100;volume<=1000');
    expect((await body())['filter']).toBe('price>150;conditions=@|F;volume>=100;volume<=1000');
    expect(callRows(await body())).toBe(listRows);

    // Back to the builder: within comes back as one row.
    await page.click('[data-testid="arg-filter-mode"] >> text=builder');
    await expect.poll(() => page.locator('[data-testid^="arg-filter-row-"]').count()).toBe(3);
    // q parse-tree text has no builder form: the builder switch is disabled.
    await page.click('[data-testid="arg-filter-mode"] >> text=text');
    await page.fill('[data-testid="arg-filter-text"]', '((>;`price;150);(in;`conditions;`$("@";"F")))');
    expect(await page.locator('[data-testid="arg-filter-mode"] >> text=builder').isDisabled()).toBe(true);
    await page.fill('[data-testid="arg-filter-text"]', '');
  });

  it('sortCols builder: direction and column rows, reordered, sent flat', async () => {
    await page.click('[data-testid="arg-sortCols-add"]');
    await page.selectOption('[data-testid="arg-sortCols-col-0"]', 'volume');
    await page.click('[data-testid="arg-sortCols-dir-0"]');
    await page.click('[data-testid="arg-sortCols-add"]');
    await page.selectOption('[data-testid="arg-sortCols-col-1"]', 'price');
    await page.click('[aria-label="move row 2 up"]');
    expect((await body())['sortCols']).toEqual(['asc', 'price', 'desc', 'volume']);
    expect(await runAndCount()).toBeGreaterThan(0);
  });

  it('orderbook: the select explains its needs, the result shows as a depth ladder', async () => {
    await page.selectOption('[data-testid="arg-orderbook"]', 'plotOrderbookSnapshots');
    await expect.poll(() => page.locator('[data-testid="arg-orderbook-hint"]').textContent()).toMatch(/Trade has no bidPrice\/askPrice level lists/);
    await page.click('[data-testid="arg-orderbook-hint"] >> text=use OrderbookSnapshots');
    expect(await page.inputValue('[data-testid="arg-table"]')).toBe('OrderbookSnapshots');
    await expect.poll(() => page.locator('[data-testid="arg-orderbook-hint"] .warn-text').count()).toBe(0);
    await page.click('[data-testid="arg-sortCols-row-0"] [aria-label^="remove"]');
    await page.click('[data-testid="arg-sortCols-row-0"] [aria-label^="remove"]');
    await page.click('[data-testid="run"]');
    await page.waitForSelector('[data-testid="ladder-mid"]');
    const books = await page.locator('[data-testid="ladder-id"] option').allTextContents();
    expect(books).toContain('MSFT');
    expect(books.every((id) => ['AAPL', 'MSFT', 'GOOGL'].includes(id))).toBe(true);
    await page.selectOption('[data-testid="ladder-id"]', 'MSFT');
    await expect.poll(() => page.locator('.lrow.best-bid').count()).toBe(1);
    expect(await page.locator('.lrow.best-ask').count()).toBe(1);
    expect(await page.locator('[data-testid="ladder-row"]').count()).toBeGreaterThanOrEqual(10);
    expect(await page.locator('[data-testid="ladder-spread"]').textContent()).toMatch(/^spread \d+\.\d+ · \d+\.\d+ bps$/);
    expect(await page.locator('[data-testid="ladder-time"]').textContent()).toMatch(/^\d{4}-\d\d-\d\dT15:29:\d\d\.\d{9}$/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-ladder.png') });
    await page.click('[data-testid="show-chart"]');
    await page.waitForSelector('[data-testid="show-ladder"]');
  });
});
