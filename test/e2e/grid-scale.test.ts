/**
 * The result grid at a million and ten million rows (issue 26): rows stay one under the other, each
 * with its own `#`, drawn where they are laid out, at the end (Ctrl+End), a little above it, in the
 * middle and at any offset of the scrollbar; and a new result comes back to the left and the top.
 * The browser's layout boxes are exact even where its painting is not (transforms past ~16M px are
 * drawn in float32), so the rows are also checked on a screenshot: each row's background, in the `#`
 * cell and in the other cells, covers exactly its box.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, ARTIFACTS, openApp } from './harness.js';

let app: App;
let page: Page;

/** The grid's row height (renderer/src/grid/layout.ts ROW_HEIGHT). */
const ROW = 22;
const MILLION = 1_000_000;
const TEN_MILLION = 10_000_000;

beforeAll(async () => {
  // one day of a million trades: getTicks of the whole day is a 1M-row result (the issue's own case)
  app = await openApp(['--days', '1', '--instruments', '4', '--trades-per-day', String(MILLION)], 'tickscope-grid-scale-');
  page = app.page;
}, 180_000);

afterAll(async () => app?.close());

const grid = (): ReturnType<Page['locator']> => page.locator('[data-testid="grid"]');
const rowsShown = async (): Promise<number> => Number((await page.locator('[data-testid="rows"]').textContent())!.split(' rows')[0]!.replace(/,/g, ''));

interface Box {
  readonly top: number;
  readonly bottom: number;
  readonly left: number;
  readonly right: number;
}
interface Cell extends Box {
  /** `#` and the time column: they stay at the left when the grid scrolls sideways. */
  readonly frozen: boolean;
}
interface ShownRow extends Box {
  /** data-row: the row's index in the result. */
  readonly row: number;
  /** The `#` cell's text. */
  readonly num: string;
  /** Every cell's box, `#` first. */
  readonly cells: readonly Cell[];
  /** Each cell's text. */
  readonly texts: readonly string[];
  /** The row's computed background (what its cells paint, the frozen ones inheriting it). */
  readonly bg: string;
}
interface Shown {
  /** Rows intersecting the grid's viewport under its header, top to bottom. */
  readonly rows: readonly ShownRow[];
  /** The viewport under the header, in page coordinates. */
  readonly viewTop: number;
  readonly viewBottom: number;
  readonly viewLeft: number;
  readonly viewRight: number;
  readonly scrollHeight: number;
  readonly elementsInDom: number;
}

/** The grid's rows as laid out now. */
const shown = (): Promise<Shown> =>
  page.evaluate(() => {
    const g = document.querySelector<HTMLElement>('[data-testid="grid"]')!;
    const box = g.getBoundingClientRect();
    const viewTop = g.querySelector('.grid-header')!.getBoundingClientRect().bottom;
    const viewBottom = box.top + g.clientTop + g.clientHeight;
    const viewLeft = box.left + g.clientLeft;
    const viewRight = viewLeft + g.clientWidth;
    const rows = [...g.querySelectorAll<HTMLElement>('[data-row]')]
      .map((r) => {
        const b = r.getBoundingClientRect();
        const cells = [...r.children].map((c) => {
          const cb = c.getBoundingClientRect();
          return { top: cb.top, bottom: cb.bottom, left: cb.left, right: cb.right, frozen: c.classList.contains('frozen') };
        });
        return {
          row: Number(r.dataset['row']),
          num: r.children[0]?.textContent ?? '',
          top: b.top,
          bottom: b.bottom,
          left: b.left,
          right: b.right,
          cells,
          texts: [...r.children].map((c) => c.textContent ?? ''),
          bg: getComputedStyle(r).backgroundColor,
        };
      })
      .filter((r) => r.bottom > viewTop + 0.5 && r.top < viewBottom - 0.5)
      .sort((a, b) => a.top - b.top);
    return { rows, viewTop, viewBottom, viewLeft, viewRight, scrollHeight: g.scrollHeight, elementsInDom: g.querySelectorAll('[data-row]').length };
  });

/**
 * Waits until the rows on screen cover the grid's viewport and their pages have arrived. The pointer
 * leaves the grid first: a hovered row changes its background (and the painting check reads it).
 */
async function settled(): Promise<Shown> {
  await page.mouse.move(1, 1);
  await page.waitForFunction(() => {
    const g = document.querySelector<HTMLElement>('[data-testid="grid"]');
    if (!g) return false;
    const viewTop = g.querySelector('.grid-header')!.getBoundingClientRect().bottom;
    const viewBottom = g.getBoundingClientRect().top + g.clientTop + g.clientHeight;
    const on = [...g.querySelectorAll('[data-row]')].filter((r) => {
      const b = r.getBoundingClientRect();
      return b.bottom > viewTop && b.top < viewBottom;
    });
    return on.length > 3 && on.every((r) => !r.textContent?.includes('…'));
  });
  // two frames: a scroll's last re-render painted
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return shown();
}

/** The layout problems of the rows on screen (none: an empty list). */
function layoutProblems(s: Shown, total: number): string[] {
  const bad: string[] = [];
  const { rows } = s;
  if (rows.length < Math.floor((s.viewBottom - s.viewTop) / ROW)) bad.push(`${rows.length} rows on screen for ${s.viewBottom - s.viewTop} px`);
  const seen = new Set<number>();
  rows.forEach((r, k) => {
    if (seen.has(r.row)) bad.push(`row ${r.row} twice`);
    seen.add(r.row);
    if (r.num !== (r.row + 1).toLocaleString('en-US')) bad.push(`row ${r.row} shows # ${r.num}`);
    if (r.row < 0 || r.row >= total) bad.push(`row ${r.row} outside 0..${total - 1}`);
    if (Math.abs(r.bottom - r.top - ROW) > 0.5) bad.push(`row ${r.row} is ${r.bottom - r.top} px high`);
    r.cells.forEach((c, j) => {
      if (Math.abs(c.top - r.top) > 0.5 || Math.abs(c.bottom - r.bottom) > 0.5) bad.push(`row ${r.row} cell ${j} at ${c.top}..${c.bottom}, its row at ${r.top}..${r.bottom}`);
    });
    const prev = rows[k - 1];
    if (prev) {
      if (r.row !== prev.row + 1) bad.push(`row ${r.row} follows row ${prev.row}`);
      if (Math.abs(r.top - prev.top - ROW) > 0.5) bad.push(`row ${r.row} at ${r.top}, ${r.top - prev.top} px below row ${prev.row}`);
    }
  });
  const first = rows[0];
  const last = rows[rows.length - 1];
  // no gap above the first row or below the last (but the result's last row may end above the bottom)
  if (first && first.top > s.viewTop + 0.5) bad.push(`a gap above row ${first.row} (${first.top} > ${s.viewTop})`);
  if (last && last.row < total - 1 && last.bottom < s.viewBottom - 0.5) bad.push(`a gap below row ${last.row}`);
  if (last && last.row === total - 1 && last.bottom > s.viewBottom + 0.5) bad.push(`the last row ends at ${last.bottom}, under the grid's bottom ${s.viewBottom}`);
  return bad;
}

/**
 * Where the screenshot disagrees with the layout: along a vertical line in the `#` cell's padding and
 * in the padding of the other cells on screen, each row wholly on screen must paint its own background
 * from its top to its bottom (alternate rows differ, so a row drawn off its place or twice shows).
 */
async function paintProblems(s: Shown): Promise<string[]> {
  const png = await page.screenshot();
  const whole = s.rows.filter((r) => r.top >= s.viewTop && r.bottom <= s.viewBottom);
  // the frozen cells, and the others where they are not scrolled under them or out of the grid
  const cells = whole[0]?.cells ?? [];
  const frozenRight = Math.max(s.viewLeft, ...cells.filter((c) => c.frozen).map((c) => c.right));
  const xs = cells.filter((c) => c.frozen || c.left >= frozenRight).map((c) => c.left + 3).filter((x) => x >= s.viewLeft && x < s.viewRight - 2);
  return page.evaluate(
    async ({ b64, rows, xs }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const ctx = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d')!;
      ctx.drawImage(bitmap, 0, 0);
      const img = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
      const bad: string[] = [];
      for (const r of rows) {
        const want = r.bg.match(/\d+/g)!.map(Number);
        for (const x of xs) {
          for (let y = Math.ceil(r.top) + 1; y < Math.floor(r.bottom) - 1; y++) {
            const at = (y * img.width + Math.round(x)) * 4;
            const got = [img.data[at]!, img.data[at + 1]!, img.data[at + 2]!];
            if (got.some((v, i) => Math.abs(v - want[i]!) > 2)) {
              bad.push(`row ${r.row} painted rgb(${got.join(', ')}) at (${Math.round(x)}, ${y}), not its ${r.bg}`);
              break;
            }
          }
        }
      }
      return bad;
    },
    { b64: png.toString('base64'), rows: whole.map((r) => ({ row: r.row, top: r.top, bottom: r.bottom, bg: r.bg })), xs },
  );
}

/** Settles, checks the layout and the painting of the rows on screen, and returns them. */
async function expectAligned(total: number, what: string): Promise<Shown> {
  const s = await settled();
  expect(layoutProblems(s, total), `${what}: layout`).toEqual([]);
  expect(await paintProblems(s), `${what}: painting`).toEqual([]);
  // no element of the grid sits millions of pixels down (float precision in the browser's painting)
  expect(s.scrollHeight, `${what}: scroll height`).toBeLessThanOrEqual(4_000_000);
  return s;
}

/** Scrolls the grid natively (as its scrollbar's thumb does) to a fraction of its scroll range. */
async function scrollToFraction(f: number): Promise<void> {
  await grid().evaluate((g, f) => g.scrollTo({ top: f * (g.scrollHeight - g.clientHeight) }), f);
}

/**
 * The first row wholly under the header where the scrollbar is: rows map linearly onto the bar, its
 * top the first row at the top, its bottom the last row at the bottom.
 */
async function expectFirstRowAtBar(s: Shown, total: number): Promise<void> {
  const [top, maxScroll] = await grid().evaluate((g) => [g.scrollTop, g.scrollHeight - g.clientHeight]);
  const perView = (s.viewBottom - s.viewTop) / ROW;
  const first = s.rows.find((r) => r.top >= s.viewTop - 0.5)!;
  expect(Math.abs(first.row - (top! / maxScroll!) * (total - perView))).toBeLessThanOrEqual(1.5);
}

/** The result the grid shows (null: none). */
const resultShown = (): Promise<string | null> => page.evaluate(() => document.querySelector('[data-testid="grid"]')?.getAttribute('data-result') ?? null);

/** Runs the form and waits for a new result with its first row read; returns its row count. */
async function run(): Promise<number> {
  const before = await resultShown();
  await page.keyboard.press('Control+Enter');
  await expect.poll(resultShown, { timeout: 120_000 }).not.toBe(before);
  await page.waitForFunction(() => !document.querySelector('[data-testid="grid"] [data-row="0"]')?.textContent?.includes('…'));
  return rowsShown();
}

/** The selected row (the first of a range), or -1. */
const selectedRow = (): Promise<number> =>
  page.evaluate(() => Number(document.querySelector('[data-testid="grid"] [aria-selected="true"]')?.getAttribute('data-row') ?? -1));

/** Clicks the fourth row on screen (a click on a row out of sight would scroll the grid first). */
async function clickRow(): Promise<void> {
  const b = (await grid().boundingBox())!;
  await page.mouse.click(b.x + 60, b.y + 24 + 3 * ROW + ROW / 2);
}

/** Checks the grid at its end, a little above it, in the middle, at other offsets and back at the start. */
async function walk(total: number, check?: (s: Shown) => void): Promise<void> {
  await clickRow();
  await page.keyboard.press('Control+End');
  // the last row on screen is the result's last
  await expect.poll(async () => (await settled()).rows.at(-1)?.row).toBe(total - 1);
  let s = await expectAligned(total, 'Ctrl+End');
  check?.(s);
  await page.screenshot({ path: join(ARTIFACTS, `e2e-grid-scale-${total}-end.png`) });

  // a little up from the end with the wheel: about 150 px of rows, not thousands
  const box = (await grid().boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -150);
  await expect.poll(async () => (await shown()).rows.at(-1)?.row).toBeLessThan(total - 1);
  s = await expectAligned(total, 'wheel up from the end');
  const lastShown = s.rows[s.rows.length - 1]!.row;
  expect(total - 1 - lastShown).toBeGreaterThanOrEqual(5);
  expect(total - 1 - lastShown).toBeLessThanOrEqual(8);
  check?.(s);
  await page.screenshot({ path: join(ARTIFACTS, `e2e-grid-scale-${total}-near-end.png`) });

  for (const f of [0.5, 0.123457, 0.999, 0.9999, 0.000731]) {
    await scrollToFraction(f);
    s = await expectAligned(total, `scrollbar at ${f}`);
    await expectFirstRowAtBar(s, total);
    check?.(s);
  }
  // the wheel a little down from the last offset: rows move by its pixels
  const from = s.rows.find((r) => r.top >= s.viewTop - 0.5)!.row;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, 110);
  await expect.poll(async () => (await shown()).rows.find((r) => r.top >= s.viewTop - 0.5)?.row).toBe(from + 5);
  s = await expectAligned(total, 'wheel down');
  check?.(s);

  // the keyboard from the end: a page up keeps the selection on screen; Ctrl+Home is the first row at the top
  await clickRow();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('PageUp');
  s = await expectAligned(total, 'Page Up from the end');
  const selected = await selectedRow();
  expect(selected).toBeLessThan(total - 5);
  expect(s.rows.some((r) => r.row === selected && r.top >= s.viewTop && r.bottom <= s.viewBottom)).toBe(true);
  await page.keyboard.press('Control+Home');
  s = await expectAligned(total, 'Ctrl+Home');
  expect(s.rows[0]!.row).toBe(0);
  expect(s.rows[0]!.top).toBeCloseTo(s.viewTop, 0);
}

describe('the result grid at millions of rows', () => {
  it('keeps the rows of a 1M-row result aligned at its end, near it, in the middle and anywhere', async () => {
    // every instrument's trades of the day (the form starts with the first one as a chip)
    await page.click('[data-testid="arg-idList"]');
    await page.keyboard.press('Backspace');
    expect(await run()).toBe(MILLION);
    const t0 = Date.now();
    await walk(MILLION, (s) => {
      // a getTicks result is in time order: the cells belong to their rows' order
      const times = s.rows.map((r) => r.texts[1]!);
      expect([...times].sort()).toEqual(times);
    });
    console.log(`grid-scale: 1M walk in ${Date.now() - t0} ms`);

    // a tick clicked on the chart: its row is selected in the grid and centred there
    const chart = (await page.locator('[data-testid="chart"]').boundingBox())!;
    await page.mouse.click(chart.x + chart.width * 0.4, chart.y + chart.height * 0.4);
    await expect.poll(selectedRow).toBeGreaterThan(1000);
    const picked = await selectedRow();
    const s = await expectAligned(MILLION, 'a row picked on the chart');
    const row = s.rows.find((r) => r.row === picked)!;
    expect(Math.abs((row.top + row.bottom) / 2 - (s.viewTop + s.viewBottom) / 2)).toBeLessThanOrEqual(ROW);

    // sideways: the frozen `#` and time cells stay at the left, on their rows
    await grid().evaluate((g) => (g.scrollLeft = g.scrollWidth));
    await expect.poll(() => grid().evaluate((g) => g.scrollLeft)).toBeGreaterThan(200);
    const right = await expectAligned(MILLION, 'scrolled sideways');
    for (const r of right.rows) expect(r.cells[0]!.left).toBeCloseTo(right.viewLeft, 0);
    await grid().evaluate((g) => (g.scrollLeft = 0));
  });

  it('looks right near the end of a 1M-row result at 1280×800 and 1600×1000', async () => {
    for (const [width, height] of [
      [1280, 800],
      [1600, 1000],
    ] as const) {
      await page.setViewportSize({ width, height });
      await clickRow();
      await page.keyboard.press('Control+End');
      await page.keyboard.press('PageUp');
      await expectAligned(MILLION, `${width}×${height}`);
      await page.screenshot({ path: join(ARTIFACTS, `e2e-grid-scale-${width}x${height}.png`) });
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('shows a new result from its first column and its first row', async () => {
    await clickRow();
    await grid().evaluate((g) => g.scrollTo({ left: g.scrollWidth, top: g.scrollHeight / 3 }));
    await expect.poll(() => grid().evaluate((g) => g.scrollLeft)).toBeGreaterThan(200);
    // another query: the same day until 15:00 UTC
    const day = (await page.inputValue('[data-testid="arg-startTS"]')).slice(0, 10);
    await page.fill('[data-testid="arg-endTS"]', `${day}D15:00`);
    expect(await run()).toBeGreaterThan(1000);
    expect(await grid().evaluate((g) => [g.scrollLeft, g.scrollTop])).toEqual([0, 0]);
    // the identifier and price columns are on screen, beside the frozen ones
    const s = await settled();
    const header = await grid().locator('.grid-header [data-col]').evaluateAll((hs) => hs.slice(0, 4).map((h) => [h.getAttribute('data-col'), h.getBoundingClientRect().right]));
    expect(header.every(([, right]) => (right as number) <= s.viewRight)).toBe(true);
  });

  it('keeps the rows of a 10M-row result aligned at its end, near it, in the middle and anywhere', async () => {
    // ten million one-millisecond buckets (racked: every bucket a row): row i is 14:30 + i ms
    const args = {
      table: 'Trade',
      startTS: '2024.03.06D14:30:00',
      endTS: '2024.03.06D17:16:40',
      inputTZ: 'UTC',
      outputTZ: 'UTC',
      idList: ['AAPL'],
      granularityUnit: 'millisecond',
      fill: 'zero',
      agg: { n: ['count', 'i'] },
    };
    await page.goto(`${app.url}#op=getStats&args=${encodeURIComponent(JSON.stringify(args))}`);
    await page.reload();
    await expect.poll(() => page.inputValue('[data-testid="arg-endTS"]').catch(() => '')).toContain('17:16:40');
    const t0 = Date.now();
    expect(await run()).toBe(TEN_MILLION);
    console.log(`grid-scale: 10M getStats in ${Date.now() - t0} ms`);
    const start = Date.UTC(2024, 2, 6, 14, 30);
    const t1 = Date.now();
    await walk(TEN_MILLION, (s) => {
      for (const r of s.rows) expect(r.texts[1], `row ${r.row}`).toBe(`${new Date(start + r.row).toISOString().slice(0, 23)}000000`);
    });
    console.log(`grid-scale: 10M walk in ${Date.now() - t1} ms`);
  });
});
