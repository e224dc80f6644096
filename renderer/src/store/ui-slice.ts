/** The UI slice: the status line's notice and which panel or palette is open. */
import type { Slice, UiSlice } from './state';

export const uiSlice: Slice<UiSlice> = (set) => ({
  notice: null,
  memoryPanel: null,
  palette: null,
  importing: false,

  openMemory(tab) {
    set({ memoryPanel: tab, palette: null });
  },

  openPalette(which) {
    set({ palette: which, memoryPanel: null });
  },

  openImport(open) {
    set({ importing: open, palette: null, memoryPanel: null });
  },
});
