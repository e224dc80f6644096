/**
 * The export slice: the whole current result to a file (SPEC 8). Every click either exports or says
 * in the status line why not. On the desktop the export lasts until the file is written (progress and
 * Cancel in the status line); in the browser it lasts until the download is handed to the browser,
 * which shows its progress from there: Export is free again at once.
 */
import type { ExportFormat } from '../../../engine/contract';
import { backend } from '../backend';
import { exportName } from '../form/export-name';
import type { ExportSlice, Slice } from './state';
import { newId, pollProgress } from './support';

export const exportSlice: Slice<ExportSlice> = (set, get) => ({
  exporting: null,

  async exportCsv() {
    await get().exportResult('csv');
  },

  async exportResult(format: ExportFormat) {
    const { result, request, failure, gridSorted, exporting, running } = get();
    // an error on screen: the result under it is not the current one
    if (failure) return set({ notice: 'Nothing to export: the last call failed (Show the previous result to export that one)' });
    if (!result || !request) return set({ notice: running ? 'Nothing to export yet: the query is still running' : 'Nothing to export: run a query first' });
    if (exporting) return set({ notice: `${exporting.name} is still being written: wait for it to finish or Cancel it, then export again` });
    const name = exportName(request, result.header, format);
    // the grid sorted by a header: the file has the rows in the grid's order
    const sorted = gridSorted?.baseId === result.resultId ? gridSorted : null;
    const how = sorted ? `, sorted by ${sorted.by}` : '';
    const id = newId();
    const rows = result.rows;
    set({ exporting: { id, name, started: performance.now(), rows, progress: null }, notice: null });
    // progress is polled as a query's is: rows written out of the result's (the engine renders the file)
    const stopPolling = pollProgress(id, (p) => {
      const now = get().exporting;
      if (now?.id !== id) return false;
      if (p) set({ exporting: { ...now, progress: p } });
      return true;
    });
    const done = (notice: string | null): void => {
      stopPolling();
      if (get().exporting?.id === id) set({ exporting: null, notice });
    };
    try {
      const r = await backend().exportCsv(sorted?.resultId ?? result.resultId, name, format, id);
      if (!r.saved) return done(null);
      // the desktop answers once the file is written; the browser once its download is handed over
      done(r.path ? `Saved ${(r.rows ?? rows).toLocaleString('en-US')} rows to ${r.path}${how}` : `Downloaded ${name} (${rows.toLocaleString('en-US')} rows${how})`);
    } catch (e) {
      const message = (e as Error).message;
      done(/cancelled/.test(message) ? `Export of ${name} cancelled; no file written` : `Export failed: ${message}`);
    }
  },

  cancelExport() {
    const e = get().exporting;
    if (!e) return false;
    void backend().cancel(e.id);
    set({ exporting: null, notice: `Export of ${e.name} cancelled` });
    return true;
  },
});
