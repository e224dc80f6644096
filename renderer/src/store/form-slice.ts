/**
 * The form slice: one form per operation, kept while the user moves between operations and between
 * connections. Showing another operation's form also shows that operation's own last result (its
 * error, its chart choice, its selected row): nothing of one operation's run is shown under another's
 * form.
 */
import { formFromArgs } from '../history/history';
import { type FormSlice, NO_RUN, operationSpec, type RunView, type Slice, tablesOf } from './state';
import { initialForm, syncUrl, unmark } from './support';

/** The run view fields of the state (what setOperation files away and puts back). */
const viewOf = (s: RunView): RunView => ({ result: s.result, request: s.request, failure: s.failure, gridSorted: s.gridSorted, chart: s.chart, selectedRow: s.selectedRow });

export const formSlice: Slice<FormSlice> = (set, get) => ({
  operation: 'getTicks',
  forms: {},
  formError: null,
  marks: null,

  setOperation(op) {
    const s = get();
    if (op === s.operation) return;
    const forms = s.forms[op] ? s.forms : { ...s.forms, [op]: initialForm(operationSpec(s.info, op), tablesOf(s)) };
    const views = { ...s.views, [s.operation]: viewOf(s) };
    const shown = views[op] ?? NO_RUN;
    delete views[op];
    // the notice was about what was on screen (an export, a copy): it goes with it
    set({ operation: op, forms, formError: null, views, ...shown, notice: null });
    syncUrl(get());
    const table = forms[op]?.['table'];
    if (typeof table === 'string' && table) void get().loadIdentifiers(table);
  },

  setField(name, value) {
    const s = get();
    const form = { ...(s.forms[s.operation] ?? {}), [name]: value };
    set({ forms: { ...s.forms, [s.operation]: form }, formError: null, marks: unmark(s.marks, s.operation, name) });
    syncUrl(get());
    if (name === 'table' && typeof value === 'string' && value) void get().loadIdentifiers(value);
  },

  async restore(operation, args, run = false) {
    const s = get();
    const spec = operationSpec(s.info, operation as never);
    if (!spec) {
      set({ notice: `${operation} is not an operation of this connection` });
      return;
    }
    get().setOperation(spec.name);
    const form = formFromArgs(spec, args);
    set({ forms: { ...get().forms, [spec.name]: form }, formError: null, marks: null, memoryPanel: null, palette: null });
    syncUrl(get());
    const table = form['table'];
    if (typeof table === 'string' && table) void get().loadIdentifiers(table);
    if (run) await get().run();
  },
});
