import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** A lint block refusing, in `files`, imports of the folders and root files above them. */
function layer(files, folders, rootFiles) {
  return [{
    files,
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          regex: `^(\\.\\./)+(${folders.join('|')})/|^(\\.\\./)+(${rootFiles.join('|')})\\.ts$`,
          message: 'This folder sits below the one imported (README, Architecture: the layers): move the shared part down, or hand it in from the composition root.',
        }],
      }],
    },
  }];
}

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
  // The layers (README, Architecture): a folder imports only folders below it. Each block names what
  // is above the folders it covers; an import of one of those fails lint (issue 27 §5). The driver
  // contract (driver/) sits below everything that books: providers/ (the drivers) and executor/ (what
  // runs them) are side by side and never import each other; the executor gets the providers through
  // the registry handed to it at start (server.ts). webhooks/ sits above jobs/: the outbox rows are
  // written by jobs/ (webhook-outbox.ts) in the transition's own transaction, and sent from webhooks/.
  ...layer(['src/config.ts', 'src/version.ts', 'src/security/**', 'src/net/**', 'src/types/**'], ['driver', 'db', 'browser', 'limits', 'scenarios', 'jobs', 'webhooks', 'executor', 'providers', 'handoff', 'cluster', 'auth', 'identity', 'operator', 'observability', 'pages', 'oauth', 'web', 'api', 'mcp', 'cli'], ['services', 'app', 'server', 'main']),
  ...layer(['src/driver/**'], ['db', 'browser', 'limits', 'scenarios', 'jobs', 'webhooks', 'executor', 'providers', 'handoff', 'cluster', 'auth', 'identity', 'operator', 'observability', 'pages', 'oauth', 'web', 'api', 'mcp', 'cli'], ['services', 'app', 'server', 'main']),
  ...layer(['src/db/**', 'src/browser/**'], ['limits', 'scenarios', 'jobs', 'webhooks', 'executor', 'providers', 'handoff', 'cluster', 'auth', 'identity', 'operator', 'observability', 'pages', 'oauth', 'web', 'api', 'mcp', 'cli'], ['services', 'app', 'server', 'main']),
  ...layer(['src/limits/**'], ['scenarios', 'jobs', 'webhooks', 'executor', 'providers', 'handoff', 'cluster', 'auth', 'identity', 'operator', 'observability', 'pages', 'oauth', 'web', 'api', 'mcp', 'cli'], ['services', 'app', 'server', 'main']),
  ...layer(['src/scenarios/**'], ['jobs', 'webhooks', 'executor', 'providers', 'handoff', 'cluster', 'auth', 'identity', 'operator', 'observability', 'pages', 'oauth', 'web', 'api', 'mcp', 'cli'], ['services', 'app', 'server', 'main']),
  ...layer(['src/jobs/**'], ['webhooks', 'executor', 'providers', 'handoff', 'cluster', 'auth', 'identity', 'operator', 'observability', 'pages', 'oauth', 'web', 'api', 'mcp', 'cli'], ['services', 'app', 'server', 'main']),
  ...layer(['src/webhooks/**'], ['executor', 'providers', 'handoff', 'cluster', 'auth', 'identity', 'operator', 'observability', 'pages', 'oauth', 'web', 'api', 'mcp', 'cli'], ['services', 'app', 'server', 'main']),
  ...layer(['src/executor/**'], ['providers', 'webhooks', 'handoff', 'cluster', 'auth', 'identity', 'operator', 'observability', 'pages', 'oauth', 'web', 'api', 'mcp', 'cli'], ['services', 'app', 'server', 'main']),
  ...layer(['src/providers/**'], ['executor', 'webhooks', 'handoff', 'cluster', 'auth', 'identity', 'operator', 'observability', 'pages', 'oauth', 'web', 'api', 'mcp', 'cli'], ['services', 'app', 'server', 'main']),
  ...layer(['src/handoff/**', 'src/cluster/**', 'src/pages/**'], ['auth', 'identity', 'operator', 'oauth', 'web', 'api', 'mcp', 'cli'], ['services', 'app', 'server', 'main']),
  ...layer(['src/auth/**', 'src/identity/**', 'src/operator/**', 'src/observability/**', 'src/oauth/**'], ['web', 'api', 'mcp', 'cli'], ['app', 'server', 'main']),
  ...layer(['src/web/**', 'src/api/**', 'src/mcp/**'], ['cli'], ['app', 'server', 'main']),
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
