import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const PACKAGES = [
  'core',
  'fsm',
  'chat-flow',
  'envelope',
  'correlate',
  'bus',
  'confirm',
  'tools',
  'conflict',
  'settings',
  'testing',
  'redis',
  'postgres',
  'feishu',
  'dingtalk',
  'telegram',
  'slack',
  'chat-sdk',
  'ai-sdk',
  'openai-agents',
  'checkpoints',
  'mcp',
  'langgraph',
  'pipeline',
  'peers',
  'protocol-tools',
  'turns',
  'ledger',
  'console',
  'restate',
];

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
  ...SUBPATHS.map((subpath) => [
    `@parley/${subpath}`,
    fileURLToPath(new URL(`./packages/${subpath.replace('/', '/src/')}.ts`, import.meta.url)),
  ]),
  ...PACKAGES.map((name) => [
    `@parley/${name}`,
    fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url)),
  ]),
]);

/** Each package holds its own coverage bar; a package not yet written has no source to count. */
const thresholds = Object.fromEntries(
  PACKAGES.map((name) => [
    `packages/${name}/src/**`,
    { lines: 95, branches: 95, functions: 95, statements: 95 },
  ]),
);

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'tests/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // After each test (and its afterEach hooks): no real timer and no abort listener left behind.
    setupFiles: ['./tests/reliability/leaks.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    typecheck: {
      enabled: true,
      include: ['packages/*/test/**/*.test-d.ts', 'tests/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**/*.ts'],
      exclude: ['**/index.ts', '**/*.d.ts'],
      reporter: ['text-summary', 'json-summary'],
      thresholds,
    },
  },
});
