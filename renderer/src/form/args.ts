/**
 * Reading an argument through its declaration (engine/contract's ARG: `ARG.startTS`), never by its
 * name written out: a form's field, a request's argument, whether an operation takes it.
 */
import { ARG, type ArgSpec, type OperationSpec } from '../../../engine/contract';
import { type FormValues, textOf } from './values';

type Decl = Pick<ArgSpec, 'name'>;
type Args = Readonly<Record<string, unknown>>;

/** Whether the operation takes the argument. */
export const takes = (op: Pick<OperationSpec, 'args'>, decl: Decl): boolean => op.args.some((a) => a.name === decl.name);

/** The text of the argument's field ('' for a structured or missing value). */
export const textArg = (values: FormValues, decl: Decl): string => textOf(values[decl.name]);

/** A request's argument when it is a string, else ''. */
export function stringArg(args: Args, decl: Decl): string {
  const v = args[decl.name];
  return typeof v === 'string' ? v : '';
}

/** The arguments among `decls` that the request gives (not undefined), in `decls`' order. */
export function givenArgs(args: Args, decls: readonly Decl[]): Record<string, unknown> {
  return Object.fromEntries(decls.filter((d) => args[d.name] !== undefined).map((d) => [d.name, args[d.name]]));
}

/** temporality's value that keeps only the slice of each day (its declaration's second allowed value). */
export const SLICED: string = ARG.temporality.allowed[1];
