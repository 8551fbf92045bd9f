import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Every package, found on disk: packages are grouped by ring (`packages/<ring>/<name>`), and the
 * npm name is `@parley/<name>`.
 */
const PACKAGES = readdirSync(new URL('./packages', import.meta.url), { withFileTypes: true })
  .filter((ring) => ring.isDirectory())
  .flatMap((ring) =>
    readdirSync(new URL(`./packages/${ring.name}`, import.meta.url)).map((name) => ({
      ring: ring.name,
      name,
    })),
  )
  .filter(({ ring, name }) =>
    existsSync(new URL(`./packages/${ring}/${name}/src/index.ts`, import.meta.url)),
  );

/** The folder of a package by its npm name without the scope. */
const dirOf = (name: string): string => {
  const found = PACKAGES.find((p) => p.name === name);
  if (!found) throw new Error(`vitest.config.ts: no package folder for @parley/${name}`);
  return `packages/${found.ring}/${name}`;
};

/** Subpath exports, listed before the packages so `@parley/testing` does not swallow them. */
const SUBPATHS = [
  'testing/loopback',
  'testing/loopback-ws',
  'restate/testing',
  'telegram/testing',
  'slack/testing',
  'feishu/testing',
  'dingtalk/testing',
  'chat-sdk/testing',
];

/** Tests import `@parley/*` from source, so `npm test` needs no build for coverage to map. */
const alias = Object.fromEntries([
  ...SUBPATHS.map((subpath) => {
    const [name = '', entry = ''] = subpath.split('/');
    return [
      `@parley/${subpath}`,
      fileURLToPath(new URL(`./${dirOf(name)}/src/${entry}.ts`, import.meta.url)),
    ];
  }),
  ...PACKAGES.map(({ name }) => [
    `@parley/${name}`,
    fileURLToPath(new URL(`./${dirOf(name)}/src/index.ts`, import.meta.url)),
  ]),
]);

/** Each package holds its own coverage bar; a package not yet written has no source to count. */
const thresholds = Object.fromEntries(
  PACKAGES.map(({ name }) => [
    `${dirOf(name)}/src/**`,
    { lines: 95, branches: 95, functions: 95, statements: 95 },
  ]),
);

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['packages/*/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'tests/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // After each test (and its afterEach hooks): no real timer and no abort listener left behind.
    setupFiles: ['./tests/reliability/leaks.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    typecheck: {
      enabled: true,
      include: ['packages/*/*/test/**/*.test-d.ts', 'tests/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
    coverage: {
      provider: 'v8',
      include: ['packages/*/*/src/**/*.ts'],
      exclude: ['**/index.ts', '**/*.d.ts'],
      reporter: ['text-summary', 'json-summary'],
      thresholds,
    },
  },
});
