import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'src/pages/static/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // One owner for the jobs table (issue 27): its statements live in src/jobs/ (rows.ts, hold-rows.ts,
    // job-reads.ts, transition.ts for status changes); every other folder asks them by name.
    files: ['src/**'],
    ignores: ['src/jobs/**', 'src/db/**'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: 'CallExpression[callee.property.name=/^(selectFrom|updateTable|insertInto|deleteFrom|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin)$/] > Literal[value=/^jobs( as \\w+)?$/]',
        message: 'The jobs table belongs to src/jobs/: use (or add) a named statement there (rows.ts, hold-rows.ts).',
      }],
    },
  },
  {
    // Tests read JSON replies of many shapes; typing each one would only restate the assertions.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The widget gauntlet's page scripts run in the browser, bundled by esbuild (JSX included).
    files: ['test/generic/fixtures/gauntlet/**'],
    languageOptions: { globals: { document: 'readonly', window: 'readonly' }, parserOptions: { ecmaFeatures: { jsx: true } } },
  },
);
