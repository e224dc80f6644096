/**
 * Which form fields an error names. The engine's messages start with the argument they are about
 * (`startTS: "tomorrow" is not a timestamp; expected ...`, engine/core/errors.ts argError), sometimes
 * with a path into it (`scope.assembly: ...`, `filter[2]: ...`); the form's own checks do the same. A
 * name is marked only when it is an argument of the operation, so `resultId: ...` or a remote
 * gateway's free text marks nothing.
 */
import { ARG } from '../../../engine/contract';

/** ac 23: the one message that names two arguments without the `name:` form. */
const START_NOT_BEFORE_END = 23;
/** ac 2: `name: is not an argument of ...`: the name is exactly what is not in the form. */
const UNKNOWN_ARGUMENT = 2;

/** The argument a message starts with (`name:` or `name.path:` / `name[i]:`), or null. */
export function argNameOf(message: string): string | null {
  const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)(?:(?:\.[A-Za-z0-9_]+|\[[^\]\n]*\])*)\s*:(?!:)/.exec(message);
  return m ? m[1]! : null;
}

/**
 * What the field shows under itself: the message without the argument's name in front, and without
 * its "; expected ..." list of forms (the error panel has the whole message).
 */
export function fieldMessage(message: string): string {
  const m = /^\s*[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+|\[[^\]\n]*\])*\s*:\s*/.exec(message);
  const rest = m ? message.slice(m[0].length) : message;
  const problem = rest.split(/;\s*expected\b/)[0]!.trim();
  return problem === '' ? message : problem;
}

/**
 * The fields an error marks, each with the text to show under it: the argument the message starts
 * with, when `argNames` (the operation's arguments) has it; startTS and endTS for `startTS >= endTS`.
 */
export function errorFields(message: string, ac: number | null, argNames: readonly string[]): Record<string, string> {
  const names = new Set(argNames);
  const [start, end] = [ARG.startTS.name, ARG.endTS.name];
  if (ac === START_NOT_BEFORE_END && names.has(start) && names.has(end)) {
    return { [start]: `${start} must be before ${end}`, [end]: `${end} must be after ${start}` };
  }
  if (ac === UNKNOWN_ARGUMENT) return {};
  const name = argNameOf(message);
  if (name === null || !names.has(name)) return {};
  return { [name]: fieldMessage(message) };
}
