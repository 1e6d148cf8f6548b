// Lint configuration: typescript-eslint's recommended rules plus the house rules
// that a linter can check (no framework imports or wall clock in src/core).
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
      'no-restricted-imports': ['error', { patterns: frameworks.map((group) => ({ group: [group, `${group}/*`], message: 'react-netcode: src/core stays framework-free.' })) }],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Inject time (house rule 2).' },
        { object: 'Math', property: 'random', message: 'Use the seeded RNG (house rule 2).' },
        { object: 'performance', property: 'now', message: 'Inject time (house rule 2).' },
      ],
      'no-restricted-globals': ['error', 'window', 'document', 'setTimeout', 'setInterval', 'requestAnimationFrame'],
    },
  },
);
