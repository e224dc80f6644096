/** The clipboard, for the request's "Copy as" and the grid's rows. */

/** Puts text on the clipboard: the Clipboard API, else a selected textarea and the copy command. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard) {
      const done = await Promise.race([navigator.clipboard.writeText(text).then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 1000))]);
      if (done) return true;
    }
  } catch {
    // refused: try the copy command
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  // the grid keeps the keyboard after a copy
  focused?.focus({ preventScroll: true });
  return ok;
}
