// Builds everything `npm start`, `npx tickscope` and the tests run:
//   dist/bin/cli.cjs           the tickscope command: a launcher (bin/launch.ts) that loads
//   dist/bin/cli-main.cjs      the command itself (Node, CommonJS: see below) through V8's code cache
//   dist/bin/executor-worker.cjs  a query worker of the executor
//   dist/bin/render-worker.cjs    a helper thread rendering JSON/CSV output (engine/output/parallel-text.ts)
//   dist/electron/main.cjs     Electron main process   dist/electron/preload.cjs  its preload (sandboxed: CJS)
//   dist/bench/bench.js        npm run bench
//   dist/bench/compare.js      two builds' benches, A/B (bench/compare.ts)
//   dist/bench/load.js         npm run load
//   dist/bench/fuzz.js         npm run fuzz
//   dist/bench/import-case.js  the import case on its own (bench.ts may run it too)
//   dist/bench/import-many.js  the import-many case on its own (bench.ts may run it too)
//   dist/bench/*.cjs           the processes the bench spawns (the timer, DuckDB's side, memory, kdb-open...)
//   dist/renderer/             the React app (Vite), served by Electron and by `tickscope serve`
import { build } from 'esbuild';
import { build as viteBuild } from 'vite';
import { readFileSync, rmSync } from 'node:fs';

const started = Date.now();
rmSync('dist/bin', { recursive: true, force: true });
rmSync('dist/electron', { recursive: true, force: true });

// Packages stay external (resolved from node_modules at run time). temporal-polyfill is the
// exception: engine/core/tz.ts loads it on first use of a zone other than UTC, from one bundled file
// (dist/vendor/temporal.js: ~15 ms to load instead of ~45 ms as the package's many ES modules), so a
// cold start in UTC pays nothing for it.
//
// apache-arrow is the other exception: every Node bundle loads it from dist/vendor/arrow.cjs, the whole
// package bundled into one CommonJS file (~25 ms to load instead of ~80-120 ms as the package's ~200
// modules), so the first Arrow result, Arrow import or `call --format arrow` does not pay for module
// resolution.
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^apache-arrow$/ }, () => ({ path: '../vendor/arrow.cjs', external: true }));
    b.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
  },
};
const node = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [externalPackages],
  // every Node bundle sits one folder below dist/
  define: { TICKSCOPE_TEMPORAL_MODULE: JSON.stringify('../vendor/temporal.js') },
};
rmSync('dist/vendor', { recursive: true, force: true });
// Node bundles are CommonJS where they can be: Node loads one ~250 kB CommonJS file ~20 ms faster than
// the same code as an ES module (the ES loader builds a facade per built-in module, node:fs's touching
// its lazy stream classes, and compiles module code more slowly), and every `tickscope` command and
// cold query pays that. They get import.meta.url from their own file name.
const cjs = {
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  external: ['electron'],
  define: { ...node.define, 'import.meta.url': 'importMetaUrl' },
  banner: { js: 'const importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
};
await Promise.all([
  build({ bundle: true, platform: 'node', target: 'node20', format: 'esm', logLevel: 'warning', entryPoints: { temporal: 'node_modules/temporal-polyfill/index.js' }, outdir: 'dist/vendor' }),
  // apache-arrow's ES modules (Arrow.node.mjs) as one CommonJS file (see externalPackages)
  build({ bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning', entryPoints: { arrow: 'node_modules/apache-arrow/Arrow.node.mjs' }, outdir: 'dist/vendor', outExtension: { '.js': '.cjs' } }),
  // the CLI, and the executor's query worker that serve and the desktop app start. Whitespace and
  // syntax minified (names kept; the source map gives the lines): every `tickscope` command reads,
  // checks and compiles (from its code cache) all of cli-main.cjs, ~30% smaller so (1.03 MB to 0.72
  // MB), which took back the ~30 ms of CPU a cold `tickscope call` had gained with the kdb+ reader
  // and the mapped import (median user+sys of 11 interleaved runs: 473 ms unminified, 441 minified)
  build({ ...node, entryPoints: { cli: 'bin/launch.ts', 'cli-main': 'bin/cli.ts', 'executor-worker': 'engine/executor/worker.ts', 'render-worker': 'engine/output/render-worker.ts' }, outdir: 'dist/bin', ...cjs, minifyWhitespace: true, minifySyntax: true }),
  // the bench driver keeps its top-level awaits; the processes it times are CommonJS, both sides alike
  build({ ...node, entryPoints: { bench: 'bench/bench.ts', compare: 'bench/compare.ts', load: 'bench/load.ts', fuzz: 'bench/fuzz.ts', 'fuzz-files': 'bench/fuzz-files.ts', 'import-case': 'bench/import-case.ts', 'import-many': 'bench/import-many.ts' }, outdir: 'dist/bench', format: 'esm' }),
  build({ ...node, entryPoints: { 'spawn-timer': 'bench/spawn-timer.ts', 'duck-copy': 'bench/duck-copy.ts', 'duck-import': 'bench/duck-import.ts', memory: 'bench/memory.ts', 'orders-memory': 'bench/orders-memory.ts', responsiveness: 'bench/responsiveness.ts', 'cancel-latency': 'bench/cancel-latency.ts', 'workers-memory': 'bench/workers-memory.ts', 'import-ours': 'bench/import-ours.ts', 'kdb-open': 'bench/kdb-open.ts' }, outdir: 'dist/bench', ...cjs }),
  build({ ...node, entryPoints: { main: 'electron/main.ts', 'demo-worker': 'electron/demo-worker.ts' }, outdir: 'dist/electron', ...cjs }),
  // the sandboxed preload's require knows almost no modules: no banner there
  build({ ...node, entryPoints: { preload: 'electron/preload.ts' }, outdir: 'dist/electron', format: 'cjs', outExtension: { '.js': '.cjs' }, external: ['electron'] }),
]);
// the bundles the command compiles through V8's code cache (bin/code-cache.ts) must hold no dynamic
// import(): Node 20 gives a script compiled from cached data no loader for it
for (const file of ['dist/bin/cli-main.cjs', 'dist/vendor/arrow.cjs']) {
  const at = readFileSync(file, 'utf8').search(/(?<![\w$.])import\(/);
  if (at >= 0) throw new Error(`${file}: a dynamic import() at offset ${at}; load it with require (see bin/code-cache.ts)`);
}
await viteBuild({ configFile: 'vite.config.ts', logLevel: 'warn' });
console.log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
