import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Node's globals for the plain JavaScript scripts (TypeScript files get them from @types/node).
const nodeGlobals = Object.fromEntries(
  ['process', 'console', 'fetch', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'URL', 'Buffer', 'AbortController', 'AbortSignal', 'performance', 'structuredClone', 'TextEncoder', 'TextDecoder'].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', '.venv/', '.tools/', 'coverage/', '.schemathesis/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  { files: ['**/*.mjs', '**/*.js'], languageOptions: { globals: nodeGlobals } },
);
