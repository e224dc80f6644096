// Lint: typescript-eslint's recommended rules plus the layer boundaries of DESIGN.md:
// renderer -> (types of) engine contract; electron -> engine; engine -> nothing of ours.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const restrict = (patterns) => ['error', { patterns }];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.bench-data/**', 'scratch/**', '.fuzz/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['engine/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['electron', 'react', 'react-dom', 'react-dom/*', 'zustand', 'lightweight-charts'], message: 'The engine runs under plain Node: no UI or Electron imports.' },
        { group: ['**/renderer/**', '**/electron/**', '**/bin/**'], message: 'The engine imports nothing of ours outside engine/.' },
      ]),
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['**/engine/*', '**/engine/**', '!**/engine/contract'], message: 'The renderer sees only engine/contract (types).' },
        { group: ['node:*', 'electron'], message: 'The renderer has no Node or Electron access; use the backend.' },
      ]),
    },
  },
  {
    files: ['electron/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([{ group: ['**/renderer/**', '**/bin/**'], message: 'electron -> engine only.' }]),
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['scripts/**/*.mjs', 'bin/*.js'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['bin/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { console: 'readonly', process: 'readonly', require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
