/**
 * Queries off the serving thread, as a user sees it: a long query shows its progress bar and Cancel,
 * the app stays responsive meanwhile, Escape cancels it (the status line says so), and the next query
 * runs. The long query comes from a database large enough to take seconds, not from a delay knob.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, openApp } from './harness.js';

let app: App;
let page: Page;

beforeAll(async () => {
  app = await openApp(['--days', '4', '--instruments', '10', '--trades-per-day', '250000'], 'tickscope-exec-');
  page = app.page;
}, 120_000);

afterAll(async () => app?.close());

/** A request to the app's API from the page (with its token): the status and the JSON body. */
function api(path: string): Promise<{ status: number; body: unknown }> {
  return page.evaluate(async (p) => {
    const token = document.querySelector<HTMLMetaElement>('meta[name="tickscope-token"]')!.content;
    const res = await fetch(p, { headers: { 'x-tickscope-token': token } });
    return { status: res.status, body: (await res.json()) as unknown };
  }, path);
}

/** The agg argument, typed as JSON in the builder's text mode. */
async function setAgg(json: string): Promise<void> {
  if (await page.locator('[data-testid="arg-agg-text"]').count() === 0) await page.click('[data-testid="arg-agg-mode"] >> text=text');
  await page.fill('[data-testid="arg-agg-text"]', json);
}

describe('a long query', () => {
  it('shows progress and Cancel, keeps the app responsive, and stops on Escape', async () => {
    await page.click('nav.op-tabs >> text=getStats');
    await page.waitForSelector('[data-testid="arg-agg"]');
    // every day of the demo (four weekdays from its first date), one-second buckets, medians
    const first = (await page.inputValue('[data-testid="arg-startTS"]')).slice(0, 10);
    await page.fill('[data-testid="arg-endTS"]', `${first.slice(0, 8)}${String(Number(first.slice(8, 10)) + 7).padStart(2, '0')}D00:00:00`);
    await page.selectOption('[data-testid="arg-granularityUnit"]', 'second');
    await setAgg('{"m":["med","price"],"s":["sdev","price"],"q":["med","volume"]}');
    const runRequest = page.waitForRequest((r) => r.url().endsWith('/app/api/run'));
    await page.click('[data-testid="run"]');
    const queryId = ((await runRequest).postDataJSON() as { queryId?: string }).queryId!;
    expect(queryId).toBeTruthy();
    await page.waitForSelector('[data-testid="running"] [role="progressbar"]', { timeout: 5000 });
    expect(await page.locator('[data-testid="cancel"]').isVisible()).toBe(true);
    // the server answers other requests while the query runs on its worker: once the query runs, an
    // info request is answered, and the query is still running after that answer
    const state = async (): Promise<string | undefined> => ((await api(`app/api/queries/${queryId}`)).body as { state?: string } | null)?.state;
    await expect.poll(state, { timeout: 10_000 }).toBe('running');
    expect((await api('app/api/info')).status).toBe(200);
    expect(await state()).toBe('running');
    await page.screenshot({ path: join(ARTIFACTS, 'running.png') });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('[data-testid="error"]').textContent(), { timeout: 5000 }).toBe('error 40: the query was cancelled');
    // the next query runs at once
    await setAgg('{"n":["count","i"]}');
    await page.selectOption('[data-testid="arg-granularityUnit"]', '');
    await page.click('[data-testid="run"]');
    await expect.poll(() => page.locator('[data-testid="rows"]').textContent(), { timeout: 10_000 }).toMatch(/^10 rows/);
  });
});
