/**
 * A kdb+ database opened from the app (issue 29): Open database… in the connection menu, the path of
 * a folder q wrote (test/fixtures/kdb-advancedkdb), its tables listed, the status line naming it as
 * kdb+ and read-only, a sym's quotes charted and the grid equal to `tickscope call` on the same folder,
 * a write refused saying why; and a folder that is no database says so in the dialog. Screenshots at
 * 1280×800 and 1600×1000 go to test-results/.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, CLI, openApp, paintedPixels, shotsAtSizes } from './harness.js';

const ADV = join(process.cwd(), 'test/fixtures/kdb-advancedkdb/hdb');

let app: App;
let page: Page;

beforeAll(async () => {
  app = await openApp(['--days', '1', '--instruments', '4', '--trades-per-day', '2000'], 'tickscope-kdb-');
  page = app.page;
});

afterAll(async () => app?.close());

const shots = (name: string): Promise<void> => shotsAtSizes(page, `e2e-kdb-${name}`);

describe('a kdb+ database in the app', () => {
  it('says what is wrong with a folder that is no database, in the dialog', async () => {
    await page.selectOption('[data-testid="connection"]', '__open');
    await page.fill('[data-testid="open-db-dir"]', app.dir);
    await page.click('[data-testid="open-db-submit"]');
    await expect.poll(() => page.locator('[data-testid="open-db-error"]').textContent()).toMatch(/is neither a Tickscope database .* nor a kdb\+ database/);
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid="open-db-dialog"]', { state: 'detached' });
  });

  it('opens a folder q wrote from Open database…, charts a sym\'s quotes and refuses a write saying why', async () => {
    await page.selectOption('[data-testid="connection"]', '__open');
    await page.fill('[data-testid="open-db-dir"]', ADV);
    await shots('open-dialog');
    await page.click('[data-testid="open-db-submit"]');
    await page.waitForSelector('[data-testid="open-db-dialog"]', { state: 'detached' });
    // the status line names the database as kdb+ and read-only; its tables are listed
    await expect.poll(() => page.locator('[data-testid="assembly-name"]').textContent()).toBe('hdb · kdb+ · read-only');
    await expect.poll(() => page.locator('.table-list .table-name').allTextContents()).toEqual(['bid', 'quote', 'statsTab']);

    await page.selectOption('[data-testid="arg-table"]', 'quote');
    await page.fill('[data-testid="arg-startTS"]', '2019.06.25D00:00:00');
    await page.fill('[data-testid="arg-endTS"]', '2019.06.26D00:00:00');
    await page.fill('[data-testid="arg-idList"]', 'IBM');
    await page.fill('[data-testid="arg-columns"]', '');
    await page.keyboard.press('Control+Enter');
    const status = await page.waitForSelector('[data-testid="rows"]');
    const shown = Number((await status.textContent())!.split(' rows')[0]!.replace(/,/g, ''));
    const body = (await page.locator('[data-testid="request-preview"]').textContent())!;
    expect(JSON.parse(body)).toMatchObject({ scope: { assembly: 'hdb' }, table: 'quote', idList: ['IBM'] });
    const out = execFileSync(process.execPath, [CLI, 'call', '--db', ADV, 'getTicks', body], { maxBuffer: 1 << 26 });
    const payload = (JSON.parse(out.toString()) as { payload: Array<Record<string, unknown>> }).payload;
    expect(payload.length).toBeGreaterThan(100);
    expect(shown).toBe(payload.length);
    // the grid's first row as the call gives it (the grid shows the time column first, then the
    // columns in the result's order: the virtual date column, sym, ...)
    await page.waitForFunction(() => !document.querySelector('[data-row="0"]')?.textContent?.includes('…'));
    const firstRow = await page.locator('[data-row="0"] .grid-cell').evaluateAll((cells) => cells.map((c) => c.getAttribute('title') ?? c.textContent));
    const { time, ...rest } = payload[0]!;
    expect(firstRow).toEqual(['1', ...[time, ...Object.values(rest)].map((v) => (v === null ? '' : String(v)))]);
    expect(firstRow.slice(1, 4)).toEqual(['2019-06-25T20:11:01.932870000', '2019-06-25', 'IBM']);
    await page.waitForSelector('[data-testid="chart-info"]');
    await expect.poll(() => paintedPixels(page), { timeout: 10_000 }).toBeGreaterThan(2000);
    await shots('quotes');

    // a write aimed at it: refused, naming the database and where writes go
    await page.goto(`${app.url}#op=generateOrderAnalytics&args=${encodeURIComponent(JSON.stringify({ scope: { assembly: 'hdb' }, table: 'quote', dt: '2019.06.25' }))}`);
    await page.reload();
    await page.waitForSelector('[data-testid="run"]');
    await page.click('[data-testid="run"]');
    await expect.poll(() => page.locator('[data-testid="error"]').textContent(), { timeout: 10_000 }).toMatch(/hdb is a kdb\+ database, read in place and never written; write to a Tickscope database mounted beside it/);
  });

  it('closes it from the connection menu (the backend test covers it coming back at the next launch)', async () => {
    const closable = await page.locator('[data-testid="connection"] optgroup option').allTextContents();
    expect(closable).toEqual(['Close hdb']);
    await page.selectOption('[data-testid="connection"]', '__close:hdb');
    await expect.poll(() => page.locator('[data-testid="assembly-name"]').count()).toBe(0);
    expect(await page.locator('[data-testid="connection"] optgroup').count()).toBe(0);
  });
});
