// ESLint: typescript-eslint's recommended rules plus the layer rules that keep the parts apart
// (docs/architecture.md). Formatting is Prettier's job (.prettierrc.json), not ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Where `electron` may be imported: the Electron entry points and IPC wiring only. */
const ELECTRON_FILES = ['src-main/hosts/electron/**', 'src-preload/**'];

const noElectron = {
  name: 'electron',
  message:
    'Only src-main/hosts/electron/ and the preload may import electron; the core is plain Node (docs/architecture.md).',
};

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'node_modules/**',
      'bench-results/**',
      'dist/**',
      '**/*.d.ts',
      '.stryker-tmp*/**',
      'reports/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Undici's dispatch handlers are plain objects whose methods need the stream as `self`.
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['self'] }],
    },
  },
  // Tests read untyped JSON from real processes (`any` is the honest type there) and match
  // terminal output column for column (runs of spaces in a regex are the point).
  // Files and functions that do one job (docs/architecture.md): a source file over 600 lines or a
  // function over 150 is split by job, not let grow.
  {
    files: ['src-main/**/*.ts', 'src-shared/**/*.ts', 'src-preload/**/*.ts', 'src-renderer/**/*.{ts,tsx}'],
    rules: {
      'max-lines': ['error', { max: 600, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 150, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    files: ['tests/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-regex-spaces': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The plain-Node core, and everything shared, never touches electron.
  {
    files: ['src-main/**/*.ts', 'src-shared/**/*.ts'],
    ignores: ELECTRON_FILES,
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron] }] },
  },
  // A child is signalled through signalChild: Node's kill() on a child whose spawn failed signals
  // the caller's own process group (docs/architecture.md, "Signalling a child").
  // The test helpers start and stop real processes the same way, so they follow the same rule.
  {
    files: ['src-main/**/*.ts', 'tests/helpers/**/*.ts', 'tests/integration/app/electron-standin/**/*.ts'],
    ignores: [...ELECTRON_FILES, 'src-main/platform/processes/signal-child.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='kill'][callee.object.name!='process']",
          message:
            'Signal a child with signalChild (src-main/platform/processes/signal-child.ts): kill() on a child that failed to spawn signals our own process group.',
        },
      ],
    },
  },
  // Shared code is pure: no Node built-ins, no reaching into main or the renderer.
  {
    files: ['src-shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [
            { regex: '^node:', message: 'src-shared runs in the renderer too: no Node built-ins.' },
            {
              regex: '(^|/)src-(main|renderer|preload)(/|$)',
              message: 'src-shared depends on nothing outside itself.',
            },
          ],
        },
      ],
    },
  },
  // The renderer sees the browser, and reaches outside its own folder only through #shared. It
  // takes only types from the zod modules, so zod stays out of the page's bundle.
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            noElectron,
            ...['#shared/ipc/contract', '#shared/ipc/forms', '#shared/session/schema'].map((name) => ({
              name,
              allowTypeImports: true,
              message:
                'Values from here would bundle zod into the page: import types only, values from #shared/ipc/channels or #shared/session/status-words.',
            })),
          ],
          patterns: [
            { regex: '^node:', message: 'The renderer is a sandboxed page: no Node built-ins.' },
            {
              regex: '(^|/)src-(main|shared|preload)(/|$)',
              message: 'The renderer imports shared code as #shared/... and nothing else from outside src-renderer.',
            },
          ],
        },
      ],
    },
  },
);
