// The rules of scripts/size.mjs --check, on made-up sizes: CI runs the script itself on the built
// packages (`npm run size -- --check` in .ci/run).
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { findProblems, readReadmeSizes, sizeCell, writeReadmeSizes } from '../scripts/size.mjs';

const MB = 1024 * 1024;
const README = [
  '| package | what it gives you | min + gzip | with its dependencies | npm install |',
  '|---|---|---|---|---|',
  '| [`@parley/core`](packages/protocols/core/README.md) | shared primitives | 4.00 kB (budget 4.50 kB) | 6.00 kB (budget 7.00 kB) | 0.50 MB |',
  '| [`@parley/bus`](packages/protocols/bus/README.md) | a message bus | 3.00 kB (budget 3.50 kB) | 5.00 kB (budget 6.00 kB) | 0.60 MB |',
].join('\n');
const BUDGETS = {
  '@parley/core': { alone: 4608, bundled: 7168 },
  '@parley/bus': { alone: 3584, bundled: 6144 },
};
interface Sizes {
  alone: number;
  bundled: number;
  install: number;
}
const CORE: Sizes = { alone: 4096, bundled: 6144, install: 0.5 * MB };
const BUS: Sizes = { alone: 3072, bundled: 5120, install: 0.6 * MB };
const sizes = (core: Partial<Sizes> = {}, bus: Partial<Sizes> = {}): Map<string, Sizes> =>
  new Map([
    ['@parley/core', { ...CORE, ...core }],
    ['@parley/bus', { ...BUS, ...bus }],
  ]);

describe('findProblems (size.mjs --check)', () => {
  it('finds nothing when every package is within its budgets and the README shows its figures', () => {
    expect(findProblems(sizes(), BUDGETS, README)).toEqual([]);
  });

  it('reports a package over its own-code budget', () => {
    expect(findProblems(sizes({}, { alone: 3600 }), BUDGETS, README)).toContain(
      '@parley/bus: alone: 3.52 kB is over its budget of 3.50 kB',
    );
  });

  it('reports a package over its budget with its dependencies bundled', () => {
    expect(findProblems(sizes({ bundled: 7200 }), BUDGETS, README)).toContain(
      '@parley/core: bundled: 7.03 kB is over its budget of 7.00 kB',
    );
  });

  it('reports a package that has no budget, or lacks the bundled one', () => {
    const none: string[] = findProblems(sizes(), { '@parley/core': BUDGETS['@parley/core'] }, README);
    expect(none).toEqual([expect.stringMatching(/^@parley\/bus: no budget in size-budgets\.json/)]);
    const partial: string[] = findProblems(sizes(), { ...BUDGETS, '@parley/bus': { alone: 3584 } }, README);
    expect(partial).toEqual(['@parley/bus: no bundled budget in size-budgets.json']);
  });

  it('reports a budget that names no package', () => {
    const problems: string[] = findProblems(
      sizes(),
      { ...BUDGETS, '@parley/gone': { alone: 1024, bundled: 1024 } },
      README,
    );
    expect(problems).toEqual([
      '@parley/gone: a budget in size-budgets.json for a package that does not exist',
    ]);
  });

  it('reports a README figure more than 5 % off the measured size, and accepts one within 5 %', () => {
    expect(findProblems(sizes({ alone: 4096 * 1.04, install: 0.52 * MB }), BUDGETS, README)).toEqual([]);
    const problems: string[] = findProblems(
      sizes({ alone: 4096 * 1.06, install: 0.6 * MB }),
      BUDGETS,
      README,
    );
    expect(problems).toEqual([
      expect.stringMatching(/^@parley\/core: alone: the README shows 4\.00 kB, measured 4\.24 kB/),
      expect.stringMatching(/^@parley\/core: install: the README shows 0\.50 MB, measured 0\.60 MB/),
    ]);
  });

  it('reports a README budget that differs from size-budgets.json', () => {
    const budgets = { ...BUDGETS, '@parley/core': { alone: 4672, bundled: 7168 } };
    expect(findProblems(sizes(), budgets, README)).toEqual([
      '@parley/core: alone: the README shows a budget of 4.50 kB, size-budgets.json 4.56 kB',
    ]);
  });

  it('reports a package missing from the README table', () => {
    const withoutBus = README.split('\n').slice(0, 3).join('\n');
    expect(findProblems(sizes(), BUDGETS, withoutBus)).toEqual([
      '@parley/bus: no row with three figures in the README package table',
    ]);
  });
});

describe('writeReadmeSizes (size.mjs --readme)', () => {
  it('replaces only the figure cells of the named packages', () => {
    const cells = { alone: sizeCell(3174, 3520), bundled: sizeCell(5000, 6144), install: '0.70 MB' };
    const written: string = writeReadmeSizes(README, new Map([['@parley/bus', cells]]));
    expect(written.split('\n')[3]).toBe(
      '| [`@parley/bus`](packages/protocols/bus/README.md) | a message bus | 3.10 kB (budget 3.44 kB) | 4.88 kB (budget 6.00 kB) | 0.70 MB |',
    );
    expect(written.split('\n').filter((line, i) => line !== README.split('\n')[i])).toHaveLength(1);
    expect(readReadmeSizes(written).get('@parley/core')).toEqual({
      alone: '4.00 kB (budget 4.50 kB)',
      bundled: '6.00 kB (budget 7.00 kB)',
      install: '0.50 MB',
    });
  });
});
