/**
 * The overflow check of issue 26, for any end-to-end test: `overflowingText(page)` lists every visible
 * element whose text does not fit its box, as the page is now.
 *
 * The rule, as the check applies it in the page:
 *
 * - Checked: every element that holds text itself (a non-empty text node among its children), every
 *   text input by its value (or its placeholder when empty) and every select by the choice it shows.
 *   Skipped: what is not drawn (display none, visibility hidden, opacity 0, a zero box, `clip` or
 *   `clip-path` as `.sr-only` uses, the inside of a closed <details>), SVG and canvas (charts draw
 *   their own labels), option lists and textareas (they scroll), and what lies wholly outside a
 *   clipping ancestor (a collapsed pane, a virtualised row): hidden on purpose.
 * - Its own box: with overflow hidden or clip (or a text-overflow ellipsis) on an axis, content larger
 *   than the box (`scrollWidth > clientWidth + 1`, `scrollHeight > clientHeight + 1`) is cut; so is a
 *   text input whose value is wider than it (`scrollWidth`), and a placeholder or a select's choice
 *   measured in the element's font wider than its box less its padding (and a select's arrow, 20 px).
 * - Its text: the rectangles of its own text nodes (a Range's client rects) must lie within its own
 *   box ("spill": text out of a box with overflow visible draws over its neighbours), then within the
 *   box of every ancestor up to the first scroll container, or up to the first box placed out of the
 *   flow (absolute or fixed: a legend over a chart, a menu, a tip) that one included ("cut by" an
 *   ancestor that clips, "out of" one that does not), and within the window. 1 px is allowed, and
 *   vertically the part of a line's text box beyond a line-height smaller than the font (the glyphs
 *   still fit). The page itself must not be larger than the window.
 * - Scrolling is not overflow: an element whose overflow is auto or scroll on an axis (the grid's
 *   scroller, lists, the form, panels) holds more than it shows on purpose; text scrolled out of its
 *   view is not cut, and what a scroller holds out of view is still checked against its own box.
 * - An ellipsis on purpose is allowed: text-overflow ellipsis with the whole text in a tooltip, that
 *   is a `title` on the element itself (any text: a grid cell shows a formatted number and its tooltip
 *   the exact one), or on its parent or grandparent (a list row) that holds the element's text. Text
 *   cut without an ellipsis, or with one and no such tooltip, is overflow; so is a placeholder cut.
 *
 * Each finding names the element by a selector path (up to its nearest `data-testid` or id), its text
 * (the first 60 characters), its box and its content's size, and how it overflows.
 */
import type { Page } from 'playwright-core';

/** One element whose text does not fit its box. */
export interface Overflow {
  /** A selector path from the nearest ancestor with a data-testid or id down to the element. */
  readonly path: string;
  /** Its text, the first 60 characters. */
  readonly text: string;
  /** What overflows: `scroll-x`/`scroll-y` (content larger than a box that hides it), `spill` (text out of its own box), `cut by <path>` or `out of <path>` (out of an ancestor's box, clipping or not), `cut by the window`, `input`, `placeholder`, `select`, or the page's scroll. */
  readonly how: string;
  /** The box, CSS pixels (client width and height, or the clipping box for a cut). */
  readonly box: { readonly width: number; readonly height: number };
  /** The content's size: scroll size, or the text's rectangle. */
  readonly content: { readonly width: number; readonly height: number };
}

/** Every visible element whose text overflows its box, its clipping ancestor's or the window (the rule above). */
export function overflowingText(page: Page): Promise<Overflow[]> {
  return page.evaluate(findOverflows);
}

/** One line for a finding, for assertion messages. */
export function describeOverflow(o: Overflow): string {
  return `${o.path} "${o.text}" ${o.how}: box ${o.box.width}×${o.box.height}, content ${o.content.width}×${o.content.height}`;
}

/** Runs in the page: the check itself (self-contained, as page.evaluate sends its source). */
function findOverflows(): Overflow[] {
  const found: Overflow[] = [];
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TITLE', 'OPTION', 'OPTGROUP', 'TEXTAREA', 'CANVAS', 'HTML', 'BODY', 'HEAD']);
  const TOL = 1;
  const round = (n: number): number => Math.round(n * 10) / 10;
  const segment = (el: Element): string => {
    const tag = el.tagName.toLowerCase();
    const id = el.getAttribute('data-testid');
    if (id) return `${tag}[data-testid="${id}"]`;
    if (el.id) return `${tag}#${el.id}`;
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean).slice(0, 3) : [];
    return `${tag}${cls.map((c) => `.${c}`).join('')}`;
  };
  const pathOf = (el: Element): string => {
    const parts: string[] = [];
    for (let e: Element | null = el; e && e !== document.body && parts.length < 6; e = e.parentElement) {
      parts.unshift(segment(e));
      if (e.getAttribute('data-testid') || e.id) break;
    }
    return parts.join(' > ');
  };
  const scrolls = (v: string): boolean => v === 'auto' || v === 'scroll';
  const clips = (v: string): boolean => v === 'hidden' || v === 'clip';
  const drawn = (el: Element): boolean => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return false;
    // what a closed <details> holds, or a content-visibility: hidden subtree, has boxes but is not drawn
    if (!el.checkVisibility({ contentVisibilityAuto: true, opacityProperty: true, visibilityProperty: true })) return false;
    for (let e: Element | null = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden' || s.visibility === 'collapse' || Number(s.opacity) === 0) return false;
      if ((s.clip !== 'auto' && s.clip !== '') || s.clipPath !== 'none') return false;
    }
    return true;
  };
  const ownTextNodes = (el: Element): Text[] => [...el.childNodes].filter((n): n is Text => n.nodeType === Node.TEXT_NODE && !!n.textContent?.trim());
  /**
   * The union of the client rects of the element's own text nodes, and how far one line's rect
   * reaches past its line box above and below (a line-height under the font's height: the glyphs
   * still fit, so that much is not overflow).
   */
  const textRect = (nodes: readonly Text[], lineHeight: number): { rect: DOMRect; lead: number } | null => {
    const range = document.createRange();
    let l = Infinity;
    let t = Infinity;
    let r = -Infinity;
    let b = -Infinity;
    let line = Infinity;
    for (const n of nodes) {
      range.selectNodeContents(n);
      for (const q of range.getClientRects()) {
        if (q.width < 0.5 || q.height < 0.5) continue;
        l = Math.min(l, q.left);
        t = Math.min(t, q.top);
        r = Math.max(r, q.right);
        b = Math.max(b, q.bottom);
        line = Math.min(line, q.height);
      }
    }
    if (l === Infinity) return null;
    return { rect: new DOMRect(l, t, r - l, b - t), lead: Number.isFinite(lineHeight) ? Math.max(0, (line - lineHeight) / 2) : 0 };
  };
  const squash = (t: string): string => t.replace(/\s+/g, ' ').trim();
  /**
   * The whole text is in a tooltip: the element's own title (any: a grid cell shows a formatted
   * number and its tooltip the exact one), or its parent's or grandparent's (a list row's) holding
   * the element's text.
   */
  const tooltip = (el: Element, text: string): boolean => {
    if (el.getAttribute('title')?.trim()) return true;
    const t = squash(text);
    for (let e = el.parentElement, i = 0; e && i < 2; e = e.parentElement, i++) {
      const title = squash(e.getAttribute('title') ?? '');
      if (title && t && title.includes(t)) return true;
    }
    return false;
  };
  const measure = document.createElement('canvas').getContext('2d')!;
  const push = (el: Element, text: string, how: string, box: { width: number; height: number }, content: { width: number; height: number }): void => {
    found.push({ path: pathOf(el), text: text.replace(/\s+/g, ' ').trim().slice(0, 60), how, box: { width: round(box.width), height: round(box.height) }, content: { width: round(content.width), height: round(content.height) } });
  };
  /** Text rect `r` beyond box `c` on a clipping axis (and not wholly outside it: that is hidden on purpose). */
  const beyond = (r: DOMRect, c: DOMRect, x: boolean, y: boolean, lead = 0): 'cut' | 'outside' | null => {
    if (r.right <= c.left || r.left >= c.right || r.bottom <= c.top || r.top >= c.bottom) return 'outside';
    const cx = x && (r.left < c.left - TOL || r.right > c.right + TOL);
    const cy = y && (r.top < c.top - TOL - lead || r.bottom > c.bottom + TOL + lead);
    return cx || cy ? 'cut' : null;
  };

  for (const el of document.body.querySelectorAll('*')) {
    if (SKIP.has(el.tagName) || el.closest('svg, canvas')) continue;
    const isInput = el instanceof HTMLInputElement && !['checkbox', 'radio', 'range', 'hidden', 'color', 'file', 'button', 'submit', 'reset', 'image'].includes(el.type);
    const isSelect = el instanceof HTMLSelectElement;
    const nodes = isInput || isSelect ? [] : ownTextNodes(el);
    const text = isInput ? el.value || el.placeholder : isSelect ? (el.selectedOptions[0]?.textContent ?? '') : nodes.map((n) => n.textContent).join('');
    if (!text.trim() || !drawn(el)) continue;
    const s = getComputedStyle(el);
    const own = el.getBoundingClientRect();

    // wholly outside a clipping ancestor (a collapsed pane, a virtualised row): not drawn, not checked.
    // What a scroll container holds out of its view is there to scroll to: it is checked, and the
    // ancestors beyond the scroller are asked about the scroller's box.
    let hidden = false;
    let reach = own;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const as = getComputedStyle(a);
      if (as.overflowX === 'visible' && as.overflowY === 'visible') continue;
      const c = a.getBoundingClientRect();
      if (scrolls(as.overflowX) || scrolls(as.overflowY)) {
        reach = c;
        continue;
      }
      if (reach.right <= c.left || reach.left >= c.right || reach.bottom <= c.top || reach.top >= c.bottom) {
        hidden = true;
        break;
      }
    }
    if (hidden) continue;

    if (isSelect) {
      measure.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      const need = measure.measureText(text).width;
      // the arrow of Chromium's menu list takes about 20 px beside the padding
      const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - 20;
      if (need > room + TOL) push(el, text, 'select', { width: room, height: el.clientHeight }, { width: need, height: el.clientHeight });
      continue;
    }
    if (isInput) {
      if (el.value) {
        if (el.scrollWidth > el.clientWidth + TOL) push(el, text, 'input', { width: el.clientWidth, height: el.clientHeight }, { width: el.scrollWidth, height: el.scrollHeight });
        continue;
      }
      // a placeholder is not in scrollWidth: measured in the input's font
      measure.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      const need = measure.measureText(text).width;
      const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
      if (need > room + TOL && !(s.textOverflow === 'ellipsis' && tooltip(el, text))) push(el, text, 'placeholder', { width: room, height: el.clientHeight }, { width: need, height: el.clientHeight });
      continue;
    }

    const ellipsis = s.textOverflow === 'ellipsis';
    const allowed = ellipsis && tooltip(el, el.textContent ?? '');
    // its own box: content larger than a box that hides it (an inline box has no client size)
    if (s.display !== 'inline' && el.clientWidth > 0 && !allowed) {
      if ((clips(s.overflowX) || ellipsis) && !scrolls(s.overflowX) && el.scrollWidth > el.clientWidth + TOL) {
        push(el, text, 'scroll-x', { width: el.clientWidth, height: el.clientHeight }, { width: el.scrollWidth, height: el.scrollHeight });
        continue;
      }
      if (clips(s.overflowY) && el.scrollHeight > el.clientHeight + TOL) {
        push(el, text, 'scroll-y', { width: el.clientWidth, height: el.clientHeight }, { width: el.scrollWidth, height: el.scrollHeight });
        continue;
      }
    }
    const tr = textRect(nodes, parseFloat(s.lineHeight));
    if (!tr) continue;
    const { rect: r, lead } = tr;
    // its text out of its own box (an inline box is its text's box); a scroll container holds it
    if (s.display !== 'inline' && !allowed) {
      const sx = !scrolls(s.overflowX);
      const sy = !scrolls(s.overflowY);
      if (beyond(r, own, sx, sy, lead) === 'cut') {
        push(el, text, 'spill', { width: own.width, height: own.height }, { width: r.width, height: r.height });
        continue;
      }
    }
    if (allowed) continue;
    // its text out of the boxes it is drawn in: every ancestor's up to the first scroll container,
    // or up to the first box placed out of the flow (absolute or fixed: a readout, a menu, a tip),
    // that one included; then the window's
    let scroller = false;
    for (let a = el.parentElement, stop = s.position === 'absolute' || s.position === 'fixed'; a && a !== document.body && !stop; a = a.parentElement) {
      const as = getComputedStyle(a);
      if (scrolls(as.overflowX) || scrolls(as.overflowY)) {
        scroller = true;
        break;
      }
      stop = as.position === 'absolute' || as.position === 'fixed';
      if (as.display === 'contents' || as.display === 'inline') continue;
      const c = a.getBoundingClientRect();
      const clipping = as.overflowX !== 'visible' || as.overflowY !== 'visible';
      const how = beyond(r, c, true, true, lead);
      if (how === null || (how === 'outside' && clipping)) continue;
      // an ancestor cutting with its own ellipsis and tooltip cuts on purpose
      if (!(clipping && as.textOverflow === 'ellipsis' && tooltip(a, a.textContent ?? ''))) push(el, text, `${clipping ? 'cut by' : 'out of'} ${pathOf(a)}`, { width: c.width, height: c.height }, { width: r.width, height: r.height });
      scroller = true;
      break;
    }
    for (let a = el.parentElement; a && !scroller; a = a.parentElement) scroller = scrolls(getComputedStyle(a).overflowX) || scrolls(getComputedStyle(a).overflowY);
    if (!scroller && beyond(r, new DOMRect(0, 0, innerWidth, innerHeight), true, true, lead) === 'cut') push(el, text, 'cut by the window', { width: innerWidth, height: innerHeight }, { width: r.width, height: r.height });
  }
  const doc = document.scrollingElement ?? document.documentElement;
  if (doc.scrollWidth > innerWidth + TOL || doc.scrollHeight > innerHeight + TOL) {
    found.push({ path: 'the page', text: '', how: 'scroll (the page is larger than the window)', box: { width: innerWidth, height: innerHeight }, content: { width: doc.scrollWidth, height: doc.scrollHeight } });
  }
  return found;
}
