/**
 * The order-analytics workspace in a browser, as a transaction-cost analyst drives it: generate a
 * day's order analytics (regenerate on by default, the rows already held shown first), summarise by
 * algoStrategy (values formatted and equal to what `tickscope call` answers, a totals row over all
 * orders, sortable), the shortfall histogram painted, then drill down to a group's orders and an
 * order's life on the chart.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, CLI, openApp } from './harness.js';

let app: App;
let page: Page;

beforeAll(async () => {
  app = await openApp(['--days', '2', '--instruments', '6', '--trades-per-day', '10000'], 'tickscope-orders-');
  page = app.page;
});

afterAll(async () => app?.close());

type Row = Record<string, unknown>;

function call(op: string, body: Row): Row[] {
  const out = execFileSync(process.execPath, [CLI, 'call', '--db', app.db, op, JSON.stringify(body)], { maxBuffer: 1 << 26 });
  return (JSON.parse(out.toString()) as { payload: Row[] }).payload;
}

describe('the order-analytics workspace', () => {
  it('generates a day, showing the rows the window already holds and the rows written', async () => {
    await page.click('nav.op-tabs >> text=generateOrderAnalytics');
    const dt = await page.inputValue('[data-testid="arg-dt"]');
    expect(dt).toMatch(/^\d{4}\.\d{2}\.\d{2}$/);
    expect(await page.isChecked('[data-testid="arg-regenExistingIDs"]')).toBe(true);
    const held = call('getOrderAnalyticSummary', { table: 'OrderAnalytics', startTS: dt, endTS: `${dt}D23:59:59.999999999`, groupBy: [], summaryFunctions: ['orderCount'] })[0]!['orderCount'] as number;
    expect(held).toBeGreaterThan(10);
    await expect.poll(() => page.locator('[data-testid="generate-held"]').textContent()).toContain(`already holds ${held.toLocaleString('en-US')} rows`);
    await page.click('[data-testid="run"]');
    await expect.poll(() => page.locator('[data-testid="generate-written"]').textContent()).toMatch(new RegExp(`Wrote ${held.toLocaleString('en-US')} OrderAnalytics rows .*replacing the stored rows of the same orders`));
    // the count under it now includes the rows just written (not "already holds", which read as duplicates)
    await expect.poll(() => page.locator('[data-testid="generate-held"]').textContent()).toContain(`now holds ${held.toLocaleString('en-US')} rows`);
    expect(await page.locator('[data-testid="generate-held"]').textContent()).toContain('those just written included');
    // regenerated, not appended: the window still holds one row per order
    expect(call('getOrderAnalyticSummary', { table: 'OrderAnalytics', startTS: dt, endTS: `${dt}D23:59:59.999999999`, groupBy: [], summaryFunctions: ['orderCount'], agg: { n: ['count', 'i'] } })[0]).toEqual({ orderCount: held, n: held });
  });

  it('summarises by algoStrategy with formatted values equal to the call, a totals row and sorting', async () => {
    await page.click('[data-testid="generate-written"] >> text=Summarise this window');
    await page.waitForSelector('[data-testid="tca-grid"] tbody tr[data-row]');
    // group by algoStrategy through the form and run again
    await page.click('[data-testid="arg-groupBy"]');
    await page.keyboard.type('algoStrategy');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.locator('[data-testid="tca-grid"] th').first().textContent()).toContain('algoStrategy');
    const body = JSON.parse((await page.locator('[data-testid="request-preview"]').textContent())!) as Row;
    const rows = call('getOrderAnalyticSummary', body);
    const gridRows = page.locator('[data-testid="tca-grid"] tbody tr[data-row]');
    await expect.poll(() => gridRows.count()).toBe(rows.length);
    const first = await gridRows.first().locator('td').allTextContents();
    expect(first[0]).toBe(rows[0]!['algoStrategy']);
    // orderCount as a count, fillRate as a percentage with one decimal, executionShortfall in bps with one
    const headers = await page.locator('[data-testid="tca-grid"] th').evaluateAll((ths) => ths.map((th) => th.getAttribute('data-col') ?? ''));
    const at = (name: string): string => first[headers.indexOf(name)]!;
    expect(at('orderCount')).toBe((rows[0]!['orderCount'] as number).toLocaleString('en-US'));
    expect(at('fillRate')).toBe(`${((rows[0]!['fillRate'] as number) * 100).toFixed(1)}%`);
    expect(at('executionShortfall')).toBe((rows[0]!['executionShortfall'] as number).toFixed(1));
    // the totals row is over all orders, not an average of the groups
    const total = call('getOrderAnalyticSummary', { ...body, groupBy: [] })[0]!;
    const totals = await page.locator('[data-testid="tca-total"] td').allTextContents();
    expect(totals[0]).toBe('All orders');
    expect(totals[headers.indexOf('fillRate')]).toBe(`${((total['fillRate'] as number) * 100).toFixed(1)}%`);
    // sorting by a column reorders the groups (descending first)
    await page.click('[data-testid="tca-grid"] th[data-col="sharesExecuted"] button');
    const shares = (await page.locator('[data-testid="tca-grid"] tbody tr[data-row]').evaluateAll((trs, j) => trs.map((tr) => Number((tr.children[j] as HTMLElement).textContent!.replace(/,/g, ''))), headers.indexOf('sharesExecuted')));
    expect(shares).toEqual([...shares].sort((a, b) => b - a));
  });

  it('paints the shortfall histogram of the selected group, then drills down to its orders and an order’s chart', async () => {
    const row = page.locator('[data-testid="tca-grid"] tbody tr[data-row]').first();
    const group = (await row.locator('td').first().textContent())!;
    await row.click();
    await expect.poll(() => page.locator('[data-testid="tca-histogram"] rect.bar').count()).toBeGreaterThan(2);
    expect(await page.locator('[data-testid="tca-histogram"] figcaption').textContent()).toContain(group);
    expect(await page.locator('[data-testid="tca-markouts"] path.markout').count()).toBeGreaterThan(1);
    await page.screenshot({ path: join(ARTIFACTS, 'orders-summary.png') });

    await page.click('[data-testid="tca-open-orders"]');
    const expected = call('.fsi.getTicks', { table: 'OrderAnalytics', startTS: (await page.inputValue('[data-testid="arg-startTS"]')), endTS: await page.inputValue('[data-testid="arg-endTS"]'), filter: [['=', 'algoStrategy', group]], columns: ['orderID'] });
    await expect.poll(() => page.locator('.tca-drill-head').textContent()).toContain(`Orders of ${group} (${expected.length})`);
    await page.click('[data-testid="tca-orders"] [data-row="0"]');
    await expect.poll(() => page.locator('[data-testid="order-chart"] path.trade-line').getAttribute('d').catch(() => '')).toMatch(/^M/);
    expect(await page.locator('[data-testid="order-chart"] figcaption').textContent()).toContain(expected[0]!['orderID'] as string);
    expect(await page.locator('[data-testid="order-chart"] rect.order-span').count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'orders-drill.png') });
    // Escape goes back to the distributions
    await page.locator('[data-testid="tca-orders"]').press('Escape');
    await expect.poll(() => page.locator('[data-testid="tca-histogram"]').count()).toBe(1);
  });
});
