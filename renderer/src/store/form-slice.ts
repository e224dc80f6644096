/**
 * The form slice: one form per operation, kept while the user moves between operations and between
 * connections. Showing another operation's form also shows that operation's own last result (its
 * error, its chart choice, its selected row): nothing of one operation's run is shown under another's
 * form.
 */
import { ARG } from '../../../engine/contract';
import { formFromArgs } from '../history/history';
import { scopedAssembly } from './request';
import type { FormValues } from '../form/values';
import { type FormSlice, NO_RUN, operationSpec, type RunView, type Slice, tablesOf } from './state';
import { initialForm, syncUrl, unmark } from './support';

/** The run view fields of the state (what setOperation files away and puts back). */
const viewOf = (s: RunView): RunView => ({ result: s.result, request: s.request, failure: s.failure, gridSorted: s.gridSorted, chart: s.chart, selectedRow: s.selectedRow });

/** The table a form names, when it names one. */
function tableIn(form: FormValues | undefined): string | null {
  const table = form?.[ARG.table.name];
  return typeof table === 'string' && table ? table : null;
}

export const formSlice: Slice<FormSlice> = (set, get) => ({
  operation: null,
  forms: {},
  formError: null,
  marks: null,

  setOperation(op) {
    const s = get();
    if (op === s.operation) return;
    const forms = s.forms[op] ? s.forms : { ...s.forms, [op]: initialForm(operationSpec(s.info, op), tablesOf(s)) };
    const views = s.operation ? { ...s.views, [s.operation]: viewOf(s) } : { ...s.views };
    const shown = views[op] ?? NO_RUN;
    delete views[op];
    // the notice was about what was on screen (an export, a copy): it goes with it
    set({ operation: op, forms, formError: null, views, ...shown, notice: null });
    syncUrl(get());
    const table = tableIn(forms[op]);
    if (table) void get().loadIdentifiers(table);
  },

  setField(name, value) {
    const s = get();
    if (!s.operation) return;
    const form = { ...(s.forms[s.operation] ?? {}), [name]: value };
    set({ forms: { ...s.forms, [s.operation]: form }, formError: null, marks: unmark(s.marks, s.operation, name) });
    syncUrl(get());
    const table = name === ARG.table.name ? tableIn(form) : null;
    if (table) void get().loadIdentifiers(table);
  },

  async restore(operation, args, run = false) {
    const s = get();
    const spec = operationSpec(s.info, operation as never);
    if (!spec) {
      set({ notice: `${operation} is not an operation of this connection` });
      return;
    }
    get().setOperation(spec.name);
    // the assembly a request names is picked (the form holds no scope of its own)
    const assembly = scopedAssembly(args, s.info);
    if (assembly) set({ assembly });
    const form = formFromArgs(spec, args);
    set({ forms: { ...get().forms, [spec.name]: form }, formError: null, marks: null, memoryPanel: null, palette: null });
    syncUrl(get());
    const table = tableIn(form);
    if (table) void get().loadIdentifiers(table);
    if (run) await get().run();
  },
});
