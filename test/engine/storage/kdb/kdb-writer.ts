/** The kdb+ writer lives with the bench (bench/kdb-writer.ts), which writes the bench's data as kdb+ HDBs with it; the tests import it from here. */
export * from '../../../../bench/kdb-writer.js';
