// Mutation testing of the parts where a surviving mutant means a broken promise: the confirmation
// reply parser, the request correlator and the fsm core. Run with `npm run mutation` (slow: not
// in CI). Narrow it with STRYKER_MUTATE, a comma-separated list of globs, e.g.
//   STRYKER_MUTATE=packages/protocols/confirm/src/vocabulary.ts npm run mutation
// Reports land in reports/mutation/ (HTML and JSON).

/** What is mutated: the reply parser fully, the correlator, and the fsm machine and actor. */
const MUTATE = [
  'packages/protocols/confirm/src/vocabulary.ts',
  'packages/protocols/correlate/src/**/*.ts',
  '!packages/protocols/correlate/src/index.ts',
  'packages/protocols/fsm/src/machine.ts',
  'packages/protocols/fsm/src/actor.ts',
];

/** The tests that may kill them: those packages' own tests and the reliability models and races. */
const TEST_FILES = [
  'packages/protocols/confirm/test/parse.test.ts',
  'packages/protocols/confirm/test/property.test.ts',
  'packages/protocols/confirm/test/robustness.test.ts',
  'packages/protocols/correlate/test/*.test.ts',
  'packages/protocols/fsm/test/*.test.ts',
  'tests/reliability/model-*.test.ts',
  'tests/reliability/races*.test.ts',
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.config.ts', related: false },
  mutate: process.env.STRYKER_MUTATE?.split(',') ?? MUTATE,
  testFiles: TEST_FILES,
  coverageAnalysis: 'perTest',
  checkers: [],
  concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 2),
  timeoutMS: 20_000,
  ignoreStatic: true,
  ignorePatterns: ['docs', 'coverage', 'reports', '.bench-results', 'dist', 'examples', 'bench'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
