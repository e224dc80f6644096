/**
 * The app's one store: a vanilla zustand store made of slices (state.ts lists them), which React only
 * binds (useStore) and the chart adapters subscribe to outside React (appStore.subscribe).
 */
import { useStore as useBound } from 'zustand';
import { createStore } from 'zustand/vanilla';
import { connectionSlice } from './connection-slice';
import { exportSlice } from './export-slice';
import { formSlice } from './form-slice';
import { memorySlice } from './memory-slice';
import { runSlice } from './run-slice';
import type { AppState } from './state';
import { uiSlice } from './ui-slice';

export type { AppState, ChartChoice, Failure, FieldMarks, RunOk, RunRequest, RunView } from './state';
export { callName, callWithView, currentForm, operationSpec, operationWithView, tablesOf, viewOf } from './state';

/** Makes a store (the app has one; tests make their own). */
export const makeStore = () =>
  createStore<AppState>()((...a) => ({
    ...connectionSlice(...a),
    ...formSlice(...a),
    ...runSlice(...a),
    ...exportSlice(...a),
    ...memorySlice(...a),
    ...uiSlice(...a),
  }));

export const appStore = makeStore();

/** React's binding: a component reads the slices it selects and renders again when they change. */
function useAppStore<T>(selector: (s: AppState) => T): T {
  return useBound(appStore, selector);
}

/** The bound hook, with the store's own getState, setState and subscribe for code outside React. */
export const useStore = Object.assign(useAppStore, {
  getState: appStore.getState,
  setState: appStore.setState,
  subscribe: appStore.subscribe,
});
