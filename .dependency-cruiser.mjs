// The floors of engine/ (docs/architecture.md, Floors), checked by `npm run lint` (dependency-cruiser).
//
// Each floor is a list of engine/ folders (or top-level files). A module may import its own folder,
// any folder of a lower floor, and a folder listed before its own on the same floor: within a floor,
// the order fixes the one direction between two folders, so folders never form a circle. Upward
// imports, type-only ones and `import('...')` type expressions alike, are errors; so are circles
// between files (engine/ and bench/) and a module of engine/ on no floor.
const FLOORS = [
  ['core'],
  ['q'],
  ['registry', 'storage', 'contract.ts'],
  ['ops', 'orders', 'operations', 'demo'],
  ['parallel', 'output', 'engine.ts'],
  ['session'],
  ['executor'],
  ['gateway', 'service'],
  ['server'],
];

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A path pattern for engine folders or top-level files (a folder name, or a name ending in .ts). */
const place = (names) => `^engine/(${names.map((n) => (n.endsWith('.ts') ? `${esc(n)}$` : `${esc(n)}/`)).join('|')})`;

const ordered = FLOORS.flatMap((floor, f) => floor.map((name, i) => ({ name, f, i })));
const upward = ordered
  .map(({ name, f, i }) => {
    const above = ordered.filter((o) => o.f > f || (o.f === f && o.i > i)).map((o) => o.name);
    return above.length === 0
      ? null
      : {
          name: `floor-${name.replace(/\.ts$/, '')}`,
          comment: `engine/${name} (floor ${f}) imports only lower floors and the folders listed before it on its own floor`,
          severity: 'error',
          from: { path: place([name]) },
          to: { path: place(above) },
        };
  })
  .filter(Boolean);

export default {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment: 'no circle of imports between files',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'on-a-floor',
      comment: 'every module of engine/ sits on a floor: add its folder to FLOORS in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^engine/', pathNot: place(ordered.map((o) => o.name)) },
      to: {},
    },
    {
      name: 'to-a-floor',
      comment: 'every module of engine/ sits on a floor: add its folder to FLOORS in .dependency-cruiser.cjs',
      severity: 'error',
      from: {},
      to: { path: '^engine/', pathNot: place(ordered.map((o) => o.name)) },
    },
    {
      name: 'resolvable',
      comment: 'a relative import that does not resolve would escape the floor rules',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // type-only imports and import('...') types count: they tie the floors together as much as values do
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
  },
};
