// The shape of the gate's source (issue 30, "the fix at its depth"): records are written by one
// file, the runner, and the rules live in pure step files that never touch a store, a clock or
// a timer. Read from the source text, so a write added anywhere else fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../src/', import.meta.url).pathname;
/** The one file that writes records (pending, decision, standing allowance, deletes). */
const RUNNER = 'internal/persistence.ts';
/** The one file that changes a confirmation's state and performs its effects. */
const STEP_RUNNER = 'internal/runner.ts';
/** The pure rules: the step entry (machine.ts), its data, and the rule files it calls. */
const STEPS = [
  'internal/machine.ts',
  'internal/machine-adopt.ts',
  'internal/draft.ts',
  'internal/confirmation.ts',
  'internal/answers.ts',
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

  it("changes a confirmation's state in the runner only, to what the pure step returns", () => {
    // `entry.conf = …` and the call of the step entry appear in the runner alone.
    const assigners = files.filter((file) => /\.conf\s*=[^=]/.test(file.code)).map((f) => f.name);
    expect(assigners).toEqual([STEP_RUNNER]);
    const callers = files.filter((file) => /\bconfirmStep\s*\(/.test(file.code)).map((f) => f.name);
    expect(callers.sort()).toEqual(['internal/machine.ts', STEP_RUNNER].sort());
    // A record is never changed in place anywhere: each version is a new object.
    const mutators = files
      .filter((file) =>
        /\brecord\.\w+\s*(=[^=]|\+\+|--)|Object\.assign\(\s*\w*\.?record\b|delete\s+\w*\.?record\./.test(
          file.code,
        ),
      )
      .map((f) => f.name);
    expect(mutators).toEqual([]);
  });

  it('turns replies, clicks, requests and store changes into events, never judging them itself', () => {
    // The answer, admission and replica rules are applied by the step alone.
    const intake = ['gate.ts', 'internal/intake.ts', 'internal/requests.ts', 'internal/sync.ts'];
    for (const name of intake) {
      const file = files.find((item) => item.name === name);
      expect(file, name).toBeDefined();
      expect(file?.code, name).not.toMatch(
        /\b(step|admit|adopt|afterDecision|toDecisionOf|absorbsAfter|decidedInTime)\s*\(/,
      );
    }
  });

  it('keeps every source file under 300 lines', () => {
    const long = sources(SRC)
      .map((path) => ({ name: relative(SRC, path), lines: readFileSync(path, 'utf8').split('\n').length }))
      .filter((file) => file.lines > 300);
    expect(long).toEqual([]);
  });
});
