// Runs every TSDoc @example of every package, as extracted into .doc-examples/ (the typecheck
// script compiles the same files). An example that throws, or rejects, fails here.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { writeExamples } from '../scripts/extract-examples.mjs';

interface Example {
  pkg: string;
  file: string;
  line: number;
  name: string;
}

const examples = writeExamples() as Example[];
const root = join(import.meta.dirname, '..');

describe.each([...new Set(examples.map((e) => e.pkg))])('@parley/%s TSDoc examples', (pkg) => {
  beforeEach(() => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each(examples.filter((e) => e.pkg === pkg).map((e) => [`${e.file}:${e.line}`, e] as const))(
    'runs the example at %s',
    async (_, example) => {
      const module: unknown = await import(join(root, '.doc-examples', example.pkg, `${example.name}.ts`));
      expect(module).toBeDefined();
    },
  );
});

it('finds examples to run', () => {
  expect(examples.length).toBeGreaterThan(0);
});
