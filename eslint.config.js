// Lint for correctness, not style (prettier formats). See ../shared/STYLE.md "Tooling".
import tseslint from 'typescript-eslint';

const components = ['api', 'channel', 'language', 'flow', 'retriver', 'indexer'];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.data/**',
      'coverage/**',
      '**/*.cjs',
      'console/dist/**',
      'dist/**',
      '.dist-*/**',
      'console/src/api/schema.d.ts',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  // A component may import src/shared and itself, never another component.
  ...components.map((component) => ({
    files: [`src/${component}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: components
            .filter((other) => other !== component)
            .map((other) => ({
              group: [`**/${other}/*`, `../${other}`, `../${other}/**`],
              message: `src/${component} must not import src/${other}; share code through src/shared.`,
            })),
        },
      ],
    },
  })),
  {
    // Scripts and tests print to the terminal on purpose.
    files: ['scripts/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // Plain JavaScript checked by tsc from its JSDoc (`// @ts-check`, e.g. the spreadsheet worker,
    // which starts without the TypeScript loader). typescript-eslint does not see JSDoc casts
    // (`/** @type {T} */ (x)`), so it would call every cast value `any`; tsc checks them.
    files: ['src/**/*.mjs', 'scripts/**/*.mjs'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The web widget: plain browser JavaScript served as it is, outside the TypeScript project.
    files: ['widget/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'script',
      parserOptions: { projectService: false },
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        localStorage: 'readonly',
        fetch: 'readonly',
        crypto: 'readonly',
        EventSource: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
      },
    },
  },
  {
    // The migration template: its functions are async for the migrations written from it.
    files: ['scripts/lib/migration-stub.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // chai's expect(x).to.be.true is an expression statement.
      '@typescript-eslint/no-unused-expressions': 'off',
      // Tests assert on parsed JSON responses field by field; typing every response body would
      // restate the schemas without making an assertion stronger.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Stand-in handlers are async to match the Handler type, whether or not they await.
      '@typescript-eslint/require-await': 'off',
    },
  },
);
