// Lint configuration: typescript-eslint's recommended rules plus the house rules
// (docs/architecture.md) that a linter can check (no framework imports or wall clock in src/core).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const frameworks = ['react', 'react-dom', 'three', '@react-three/*', '@dimforge/*', 'socket.io', 'socket.io-client'];

export default tseslint.config(
  { ignores: ['.tmp*', 'dist/**', 'node_modules/**', 'storybook-static/**', 'coverage/**', 'demo/dist/**', 'examples/*/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Functions that read in one sitting, lines that fit a side-by-side diff.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
      'max-len': ['error', { code: 140, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: frameworks.map((group) => ({ group: [group, `${group}/*`], message: 'react-netcode: src/core stays framework-free (docs/architecture.md, house rule 1).' })) }],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'react-netcode: src/core takes time injected (docs/architecture.md, house rule 2): use a now argument or the Scheduler.' },
        { object: 'Math', property: 'random', message: 'react-netcode: src/core uses the seeded Rng (docs/architecture.md, house rule 2).' },
        { object: 'performance', property: 'now', message: 'react-netcode: src/core takes time injected (docs/architecture.md, house rule 2): use a now argument or the Scheduler.' },
      ],
      'no-restricted-globals': ['error', 'window', 'document', 'setTimeout', 'setInterval', 'requestAnimationFrame'],
    },
  },
);
