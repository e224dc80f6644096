/**
 * The layout check of issue 13: every view of the workbench, at 1280×800 and 1600×1000, with no
 * label, header, button or cell text clipped (its text wider or taller than its box, or cut by a
 * clipping ancestor) and no two texts drawn over each other. A screenshot of each view at each size
 * goes to test-results/ (layout-<view>-<width>.png).
 *
 * The check runs in the page (`layoutProblems` below) over every visible element holding text of its
 * own: inputs, selects and buttons by their value or label, everything else by its text nodes.
 * Scrolling regions are not clipping (a cell scrolled half out of its grid is not a bug); an
 * ancestor that hides its overflow is. Text cut with an ellipsis whose whole text is its (or its
 * row's) tooltip is cut on purpose, not clipped: a history entry's argument summary, a list cell
 * wider than its column. Two texts overlap when their drawn boxes intersect and each is
 * the topmost thing at its own centre (so a menu or a dialog over the page is not an overlap).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, openApp, settled } from './harness.js';

let app: App;
let page: Page;
const DAY = '2024.03.06';
const SIZES = [
  [1280, 800],
  [1600, 1000],
] as const;

beforeAll(async () => {
  app = await openApp(['--days', '2', '--instruments', '8', '--trades-per-day', '8000'], 'tickscope-layout-');
  page = app.page;
});

afterAll(async () => app?.close());

type Row = Record<string, unknown>;

/** Puts a request in the form through the URL and runs it, waiting for its result (or its error). */
async function run(op: string, args: Row): Promise<void> {
  await page.goto(`${app.url}#op=${op}&args=${encodeURIComponent(JSON.stringify(args))}`);
  await page.reload();
  await page.waitForSelector('[data-testid="run"]');
  await page.click('[data-testid="run"]');
  // the button is disabled while the run goes on (its text is no sign: "Running…" starts with "Run")
  await page.waitForFunction(() => (document.querySelector('[data-testid="run"]') as HTMLButtonElement | null)?.disabled === false);
  await page.waitForSelector('[data-testid="rows"], [data-testid="error-panel"], [data-testid="empty-panel"], [data-testid="generate-written"]');
}

/** What is clipped or overlapped in the page now, one line per problem (runs in the browser). */
function layoutProblems(): string[] {
  const problems: string[] = [];
  const SKIP = new Set(['SCRIPT', 'STYLE', 'CANVAS', 'svg', 'OPTION', 'TEXTAREA', 'HTML', 'BODY', 'TITLE']);
  const name = (el: Element): string => {
    const id = el.getAttribute('data-testid') ?? el.closest('[data-testid]')?.getAttribute('data-testid') ?? '';
    const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
    return `${el.tagName.toLowerCase()}${cls}${id ? ` in [${id}]` : ''}`;
  };
  const shown = (el: Element): boolean => {
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1 || r.bottom <= 0 || r.right <= 0 || r.top >= innerHeight || r.left >= innerWidth) return false;
    for (let e: Element | null = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.visibility === 'hidden' || s.display === 'none' || Number(s.opacity) === 0 || (s.clip !== 'auto' && s.clip !== '') || s.clipPath !== 'none') return false;
    }
    return true;
  };
  const ownText = (el: Element): string => {
    if (el instanceof HTMLInputElement) return ['checkbox', 'radio', 'range', 'hidden'].includes(el.type) ? '' : el.value || el.placeholder;
    if (el instanceof HTMLSelectElement) return el.selectedOptions[0]?.textContent ?? '';
    return [...el.childNodes]
      .filter((n) => n.nodeType === Node.TEXT_NODE)
      .map((n) => n.textContent ?? '')
      .join('')
      .trim();
  };
  /** The box the element's own text is drawn in (its text nodes; an input's or select's own box). */
  const textBox = (el: Element): DOMRect | null => {
    if (el instanceof HTMLInputElement || el instanceof HTMLSelectElement) return null;
    const range = document.createRange();
    let box: DOMRect | null = null;
    for (const n of el.childNodes) {
      if (n.nodeType !== Node.TEXT_NODE || !n.textContent?.trim()) continue;
      range.selectNodeContents(n);
      const r = range.getBoundingClientRect();
      if (r.width === 0) continue;
      box = box ? new DOMRect(Math.min(box.left, r.left), Math.min(box.top, r.top), Math.max(box.right, r.right) - Math.min(box.left, r.left), Math.max(box.bottom, r.bottom) - Math.min(box.top, r.top)) : r;
    }
    return box;
  };
  const texts: Array<{ el: Element; text: string; box: DOMRect }> = [];
  for (const el of document.querySelectorAll('body *')) {
    if (SKIP.has(el.tagName) || el.closest('svg, canvas, [aria-hidden="true"]')) continue;
    const text = ownText(el);
    if (!text || !shown(el)) continue;
    const s = getComputedStyle(el);
    const scrolls = /auto|scroll/.test(s.overflowX);
    // cut on purpose: an ellipsis, with the whole text as its (or its row's) tooltip
    const ellipsis = s.textOverflow === 'ellipsis' && !!el.closest('[title]')?.getAttribute('title');
    // its text wider (or taller) than its box
    if (!scrolls && !ellipsis && s.display !== 'inline' && el.clientWidth > 0) {
      if (el instanceof HTMLInputElement) {
        // a text input's value: measured by the width it needs
        if (el.scrollWidth > el.clientWidth + 1) problems.push(`clipped: ${name(el)} "${text}" needs ${el.scrollWidth}px, has ${el.clientWidth}px`);
      } else if (el.scrollWidth > el.clientWidth + 1) problems.push(`clipped: ${name(el)} "${text.slice(0, 60)}" needs ${el.scrollWidth}px, has ${el.clientWidth}px`);
      else if (!/auto|scroll/.test(s.overflowY) && s.overflowY !== 'visible' && el.scrollHeight > el.clientHeight + 2) problems.push(`clipped: ${name(el)} "${text.slice(0, 60)}" needs ${el.scrollHeight}px of height, has ${el.clientHeight}px`);
    }
    let box = textBox(el) ?? el.getBoundingClientRect();
    if (s.overflowX !== 'visible' && s.display !== 'inline') {
      // what shows of it: its text within its own box
      const own = el.getBoundingClientRect();
      const left = Math.max(box.left, own.left);
      const right = Math.min(box.right, own.right);
      box = new DOMRect(left, box.top, Math.max(0, right - left), box.height);
    }
    // cut by an ancestor that hides its overflow (scrolling regions are not cuts)
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const as = getComputedStyle(a);
      if (/auto|scroll/.test(as.overflowX + as.overflowY)) break;
      if (as.overflowX === 'visible' && as.overflowY === 'visible') continue;
      const c = a.getBoundingClientRect();
      const cutX = as.overflowX !== 'visible' && (box.left < c.left - 1 || box.right > c.right + 1);
      const cutY = as.overflowY !== 'visible' && (box.top < c.top - 1 || box.bottom > c.bottom + 1);
      // wholly outside: hidden on purpose (a collapsed pane, a virtualised row), not cut
      const outside = box.right <= c.left || box.left >= c.right || box.bottom <= c.top || box.top >= c.bottom;
      if ((cutX || cutY) && !outside) problems.push(`cut: ${name(el)} "${text.slice(0, 60)}" by ${name(a)}`);
      break;
    }
    // what is drawn of it: its box within every ancestor that clips or scrolls (a label half
    // scrolled out of the form is not drawn over the status line below the form)
    let drawn: DOMRect | null = box;
    for (let a = el.parentElement; a && drawn; a = a.parentElement) {
      const as = getComputedStyle(a);
      if (as.overflowX === 'visible' && as.overflowY === 'visible') continue;
      const c = a.getBoundingClientRect();
      const left: number = as.overflowX === 'visible' ? drawn.left : Math.max(drawn.left, c.left);
      const right: number = as.overflowX === 'visible' ? drawn.right : Math.min(drawn.right, c.right);
      const top: number = as.overflowY === 'visible' ? drawn.top : Math.max(drawn.top, c.top);
      const bottom: number = as.overflowY === 'visible' ? drawn.bottom : Math.min(drawn.bottom, c.bottom);
      drawn = right > left && bottom > top ? new DOMRect(left, top, right - left, bottom - top) : null;
    }
    if (drawn) texts.push({ el, text, box: drawn });
  }
  // drawn over each other: both topmost at their own centres, their boxes intersecting
  const topmost = (t: { el: Element; box: DOMRect }): boolean => {
    const x = t.box.left + t.box.width / 2;
    const y = t.box.top + t.box.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
    const hit = document.elementFromPoint(x, y);
    return !!hit && (hit === t.el || t.el.contains(hit) || hit.contains(t.el));
  };
  const top = texts.filter(topmost);
  for (let i = 0; i < top.length; i++) {
    for (let j = i + 1; j < top.length; j++) {
      const a = top[i]!;
      const b = top[j]!;
      if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const w = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
      const h = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
      if (w > 2 && h > 2) problems.push(`overlap: ${name(a.el)} "${a.text.slice(0, 40)}" and ${name(b.el)} "${b.text.slice(0, 40)}"`);
    }
  }
  return problems;
}

/** Every layout problem of the current view at both sizes (with a screenshot of each). */
async function check(view: string, before?: () => Promise<void>): Promise<string[]> {
  const found: string[] = [];
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    await settled(page);
    await before?.();
    await page.screenshot({ path: join(ARTIFACTS, `layout-${view}-${width}.png`) });
    for (const p of await page.evaluate(layoutProblems)) found.push(`${view} @${width}×${height}: ${p}`);
  }
  return found;
}

describe('layout at 1280×800 and 1600×1000: no clipped or overlapping text', () => {
  it('ticks: chart (a full day: auction prints clipped on the volume scale), grid, form and status line', async () => {
    await run('getTicks', { table: 'Trade', startTS: `${DAY}D00:00:00`, endTS: `${DAY}D23:59:59`, idList: ['AAPL', 'MSFT'] });
    await page.waitForSelector('[data-testid="chart-clipped"]');
    expect(await check('ticks')).toEqual([]);
  });

  it('the depth ladder of OrderbookSnapshots', async () => {
    await run('getTicks', { table: 'OrderbookSnapshots', startTS: `${DAY}D14:30:00`, endTS: `${DAY}D15:00:00`, idList: ['AAPL'], orderbook: 'plotOrderbookSnapshots' });
    await page.waitForSelector('[data-testid="ladder-mid"]');
    expect(await check('ladder')).toEqual([]);
  });

  it('getStats: candles over buckets, and bar panels without them', async () => {
    const args = { table: 'Trade', startTS: `${DAY}D14:30:00`, endTS: `${DAY}D21:00:00`, idList: ['AAPL', 'MSFT'], analytics: ['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume'], granularity: 5, granularityUnit: 'minute' };
    await run('getStats', args);
    const candles = await check('stats-candles');
    await run('getStats', { table: 'Trade', startTS: `${DAY}D00:00:00`, endTS: `${DAY}D23:59:59`, analytics: ['firstPrice', 'lastPrice', 'sumVolume'], groupBy: ['instrumentID'] });
    await page.waitForSelector('[data-testid="bar-chart"]');
    expect([...candles, ...(await check('stats-bars'))]).toEqual([]);
  });

  it('the order-analytics summary grid', async () => {
    await run('getOrderAnalyticSummary', { table: 'OrderAnalytics', startTS: `${DAY}D00:00:00`, endTS: '2024.03.08D00:00:00', groupBy: ['algoStrategy'] });
    await page.waitForSelector('[data-testid="tca-grid"] tbody tr[data-row]');
    expect(await check('orders-summary')).toEqual([]);
  });

  it('the error panel and the empty state', async () => {
    await run('getTicks', { table: 'Trade', startTS: 'tomorrow', endTS: `${DAY}D16:00:00` });
    await page.waitForSelector('[data-testid="error-panel"]');
    const error = await check('error');
    await run('getTicks', { table: 'Trade', startTS: `${DAY}D03:00:00`, endTS: `${DAY}D03:01:00`, idList: ['AAPL'] });
    await page.waitForSelector('[data-testid="empty-panel"]');
    expect([...error, ...(await check('empty'))]).toEqual([]);
  });

  it('history, the command palette and the shortcut list', async () => {
    await run('getTicks', { table: 'Trade', startTS: `${DAY}D14:30:00`, endTS: `${DAY}D14:35:00` });
    const history = await check('history', async () => {
      if ((await page.locator('[data-testid="memory-panel"]').count()) === 0) await page.keyboard.press('Control+h');
      await page.locator('[data-testid="memory-list"] li').first().waitFor();
    });
    await page.keyboard.press('Escape');
    const palette = await check('palette', async () => {
      if ((await page.locator('[data-testid="command-palette"]').count()) === 0) await page.keyboard.press('Control+k');
      await page.locator('[data-testid="command-palette"]').waitFor();
    });
    await page.keyboard.press('Escape');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    const shortcuts = await check('shortcuts', async () => {
      if ((await page.locator('[data-testid="keys-panel"]').count()) === 0) await page.keyboard.press('?');
      await page.locator('[data-testid="keys-panel"]').waitFor();
    });
    expect([...history, ...palette, ...shortcuts]).toEqual([]);
  });
});
