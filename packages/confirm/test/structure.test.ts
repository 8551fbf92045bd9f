// The shape of the gate's source (issue 30, "the fix at its depth"): records are written by one
// file, the runner, and the rules live in pure step files that never touch a store, a clock or
// a timer. Read from the source text, so a write added anywhere else fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../src/', import.meta.url).pathname;
/** The one file that writes records (pending, decision, standing allowance, deletes). */
const RUNNER = 'internal/persistence.ts';
/** The pure rules. */
const STEPS = [
  'internal/step.ts',
  'internal/step-admit.ts',
  'internal/step-decided.ts',
  'internal/step-store.ts',
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((item) =>
    item.isDirectory()
      ? sources(join(dir, item.name))
      : item.name.endsWith('.ts')
        ? [join(dir, item.name)]
        : [],
  );
}

const files = sources(SRC).map((path) => ({
  name: relative(SRC, path),
  // Comments say what is written where; only code counts.
  code: readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''),
}));

/** A call that writes the store or goes through the kernel. */
const WRITE = [
  /\.\s*compareAndSet\s*\(/,
  /\bstore\s*\??\.\s*(set|delete)\s*\(/,
  /\bkernel\s*\??\.\s*(apply|acquire|renew|release|claim|settle|abandon)\s*\(/,
  /\brunEffects\s*\(/,
];

describe('the confirm gate source', () => {
  it('writes records from the runner file only', () => {
    const writers = files
      .filter((file) => WRITE.some((pattern) => pattern.test(file.code)))
      .map((f) => f.name);
    expect(writers).toEqual([RUNNER]);
  });

  it('keeps its rules pure: no store, clock, timer, await or runtime import in a step file', () => {
    for (const name of STEPS) {
      const file = files.find((item) => item.name === name);
      expect(file, name).toBeDefined();
      const impure = [
        /\bstore\b/,
        /\bclock\b/,
        /setTimeout|Date\.now|Math\.random/,
        /\bawait\b|\basync\b/,
        /from '\.\/(context|lifecycle|persistence|sync|replies|cards|requests)\.js'/,
      ].filter((pattern) => pattern.test(file?.code ?? ''));
      expect(impure.map(String), name).toEqual([]);
    }
  });

  it('keeps every source file under 300 lines', () => {
    const long = sources(SRC)
      .map((path) => ({ name: relative(SRC, path), lines: readFileSync(path, 'utf8').split('\n').length }))
      .filter((file) => file.lines > 300);
    expect(long).toEqual([]);
  });
});
