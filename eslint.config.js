import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'test-results/**',
      'playwright-report/**',
      'api/drizzle/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '*.ts', 'scripts/*.mjs', 'api/*.mjs', 'pwa/scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // An async function without await is how a Fastify hook or a test double returns a promise.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['pwa/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // The browser's own dialogs block the page, cannot be styled and take focus where they like: the app asks
      // with its accessible dialogs (components/dialogs.tsx) and says failures in them or beside the form.
      'no-restricted-globals': [
        'error',
        ...['alert', 'confirm', 'prompt'].map((name) => ({
          name,
          message: 'Use useDialogs() (components/dialogs.tsx) or an inline alert instead of the browser dialog.',
        })),
      ],
      'no-restricted-properties': [
        'error',
        ...['window', 'self', 'globalThis'].flatMap((object) =>
          ['alert', 'confirm', 'prompt'].map((property) => ({
            object,
            property,
            message: 'Use useDialogs() (components/dialogs.tsx) or an inline alert instead of the browser dialog.',
          })),
        ),
      ],
    },
  },
  {
    // Test support lives in api/test, pwa/test and e2e: the product and the bench never import it.
    files: ['api/src/**/*.ts', 'pwa/src/**/*.{ts,tsx}', 'sync-protocol/src/**/*.ts', 'bench/**/*.ts'],
    ignores: ['**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // The browser's launch flags (e2e/chromium.ts) are configuration the bench shares, not a test's.
              group: ['**/test/*', '**/e2e/*', '!**/e2e/chromium'],
              message:
                'Test support (api/test, pwa/test, e2e) is for tests only; move what the product needs out of it.',
            },
          ],
        },
      ],
    },
  },
  { files: ['**/*.{js,mjs}'], ...tseslint.configs.disableTypeChecked },
);
