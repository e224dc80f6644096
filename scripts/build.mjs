// Builds everything `npm start`, `npx tickscope` and the tests run:
//   dist/bin/cli.js            the tickscope command (Node, ESM)
//   dist/electron/main.cjs     Electron main process   dist/electron/preload.cjs  its preload (sandboxed: CJS)
//   dist/bench/bench.js        npm run bench
//   dist/renderer/             the React app (Vite), served by Electron and by `tickscope serve`
import { build } from 'esbuild';
import { build as viteBuild } from 'vite';
import { rmSync } from 'node:fs';

const started = Date.now();
rmSync('dist/bin', { recursive: true, force: true });
rmSync('dist/electron', { recursive: true, force: true });

// Packages stay external (resolved from node_modules at run time), except temporal-polyfill: bundled,
// it loads in ~15 ms instead of ~45 ms as its many ES modules, which a cold start pays on every run.
const bundled = ['temporal-polyfill'];
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      bundled.some((name) => args.path === name || args.path.startsWith(`${name}/`)) ? undefined : { path: args.path, external: true },
    );
  },
};
const node = { bundle: true, platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning', plugins: [externalPackages] };
await Promise.all([
  build({ ...node, entryPoints: { cli: 'bin/cli.ts' }, outdir: 'dist/bin', format: 'esm' }),
  build({ ...node, entryPoints: { bench: 'bench/bench.ts', 'cold-ours': 'bench/cold-ours.ts', 'cold-duck': 'bench/cold-duck.ts', 'cold-empty': 'bench/cold-empty.ts', memory: 'bench/memory.ts' }, outdir: 'dist/bench', format: 'esm' }),
  build({ ...node, entryPoints: { main: 'electron/main.ts', 'demo-worker': 'electron/demo-worker.ts' }, outdir: 'dist/electron', format: 'cjs', outExtension: { '.js': '.cjs' }, external: ['electron'] }),
  build({ ...node, entryPoints: { preload: 'electron/preload.ts' }, outdir: 'dist/electron', format: 'cjs', outExtension: { '.js': '.cjs' }, external: ['electron'] }),
]);
await viteBuild({ configFile: 'vite.config.ts', logLevel: 'warn' });
console.log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
