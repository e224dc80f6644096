/**
 * DuckDB's side of the command cases (cold, output): a fresh process imports @duckdb/node-api, opens
 * the bench's .duckdb file read-only at `threads`, runs `COPY (sql) TO '/dev/null' (FORMAT ...)`,
 * closes the database and exits: DuckDB's counterpart of `tickscope call --format csv|json` (open,
 * query, render, write, exit). What it did goes to standard error as one line of JSON,
 * `{"rows":N,"bytes":N|null}`. Argument: JSON DuckCopyArg (command-timing.ts).
 *
 * With `to: 'count'` (the untimed probe run) COPY writes into a named pipe this process reads and
 * counts instead, so the bytes are known without writing them to disk (DuckDB cannot open
 * /dev/stdout when it is the socket Node gives a child for a piped standard output).
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { COPY_OPTIONS, type DuckCopyArg } from './command-timing.js';

/** A named pipe, and the count of the bytes written into it once the writer closes it. */
function countingPipe(): { path: string; bytes: Promise<number>; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tickscope-bench-'));
  const path = join(dir, 'out');
  execFileSync('mkfifo', [path]);
  const bytes = new Promise<number>((resolve, reject) => {
    let n = 0;
    createReadStream(path)
      .on('data', (b) => (n += b.length))
      .on('end', () => resolve(n))
      .on('error', reject);
  });
  return { path, bytes, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2]!) as DuckCopyArg;
  const pipe = input.to === 'count' ? countingPipe() : null;
  try {
    const instance = await DuckDBInstance.create(input.file, { access_mode: 'READ_ONLY', threads: String(input.threads) });
    const conn = await instance.connect();
    const r = await conn.run(`COPY (${input.sql}) TO '${pipe ? pipe.path : '/dev/null'}' (${COPY_OPTIONS[input.format]})`);
    const rows = r.rowsChanged;
    conn.closeSync();
    instance.closeSync();
    const bytes = pipe ? await pipe.bytes : null;
    process.stderr.write(`${JSON.stringify({ rows, bytes })}\n`);
  } finally {
    pipe?.remove();
  }
}

void main();
