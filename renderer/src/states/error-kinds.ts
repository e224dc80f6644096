/**
 * The error codes (`ac`) as docs/errors.md lists them: the kind's name and when it happens. The
 * document is bundled as text and its table read here, so the app and the docs never disagree.
 */
import errorsDoc from '../../../docs/errors.md?raw';

export interface ErrorKindDoc {
  readonly ac: number;
  /** The kind, as the table names it ("value does not parse as the argument type"). */
  readonly kind: string;
  /** When it happens (the table's last column, Markdown backticks removed). */
  readonly when: string;
}

/** The rows of the `| ac | kind | HTTP | when |` table of a Markdown text, by ac. */
export function parseErrorKinds(markdown: string): ReadonlyMap<number, ErrorKindDoc> {
  const kinds = new Map<number, ErrorKindDoc>();
  for (const line of markdown.split('\n')) {
    const m = /^\|\s*(\d+)\s*\|([^|]*)\|\s*\d*\s*\|(.*)\|\s*$/.exec(line);
    if (!m) continue;
    const ac = Number(m[1]);
    if (ac === 0) continue;
    kinds.set(ac, { ac, kind: m[2]!.trim(), when: m[3]!.trim().replace(/`/g, '') });
  }
  return kinds;
}

let kinds: ReadonlyMap<number, ErrorKindDoc> | null = null;

/** What docs/errors.md says of an error code, or undefined for a code it does not list (a remote's). */
export function errorKind(ac: number | null): ErrorKindDoc | undefined {
  if (ac === null) return undefined;
  kinds ??= parseErrorKinds(errorsDoc);
  return kinds.get(ac);
}
