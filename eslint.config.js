import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'src/web/static/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
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
