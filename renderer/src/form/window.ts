/** A form's window as typed: dt (a day, and the day after) or startTS and endTS. */
import { ARG } from '../../../engine/contract';
import { textArg } from './args';
import type { FormValues } from './values';

/** The form's window: dt and the day after it, or startTS and endTS; null when neither is complete. */
export function formWindow(values: FormValues): { startTS: string; endTS: string } | null {
  const dt = textArg(values, ARG.dt).trim();
  if (dt) {
    const m = /^(\d{4})[.-](\d{2})[.-](\d{2})$/.exec(dt);
    if (!m) return null;
    const next = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1)).toISOString().slice(0, 10).replace(/-/g, '.');
    return { startTS: `${m[1]}.${m[2]}.${m[3]}`, endTS: next };
  }
  const s = textArg(values, ARG.startTS).trim();
  const e = textArg(values, ARG.endTS).trim();
  return s && e ? { startTS: s, endTS: e } : null;
}
