// Flat ESLint config: typescript-eslint recommended + react-hooks for the renderer,
// plus import boundaries that keep the architecture honest.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'

const electronOnlyInShell = {
  patterns: [{ group: ['electron'], message: 'Only src/main/index.ts and src/main/shell/ may import electron.' }],
}

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'coverage/**', '**/*.tmp.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly' } },
  },
  {
    files: ['src/main/runtime/**', 'src/main/gateway/**', 'src/main/api/**', 'src/cli/**', 'src/shared/**'],
    rules: { 'no-restricted-imports': ['error', electronOnlyInShell] },
  },
  {
    files: ['src/renderer/**'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // TanStack Virtual returns functions by design; the compiler notice is not actionable.
      'react-hooks/incompatible-library': 'off',
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/main/**', 'electron'], message: 'The renderer only imports src/shared.' }] },
      ],
    },
  },
)
