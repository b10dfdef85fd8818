import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// Node's globals for the plain JavaScript scripts (TypeScript files get them from @types/node).
const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'fetch',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'URL',
    'Buffer',
    'AbortController',
    'AbortSignal',
    'performance',
    'structuredClone',
    'TextEncoder',
    'TextDecoder',
  ].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', '.venv/', '.tools/', 'coverage/', '.schemathesis/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // better-sqlite3 is synchronous behind asynchronous ports: `async` is what turns its throws into rejections.
    files: ['src/adapters/sqlite/**/*.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  {
    // supertest's `res.body` and vitest's mocks are `any` by design; tests assert on them instead of typing them.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: nodeGlobals },
  },
  // Layout is prettier's job; this turns off the stylistic rules that would fight it.
  prettier,
);
