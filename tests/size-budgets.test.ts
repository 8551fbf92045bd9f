// The rules of scripts/size.mjs --check, on made-up sizes: CI runs the script itself on the built
// packages (`npm run size -- --check` in .ci/run).
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { findProblems, readReadmeSizes, sizeCell, writeReadmeSizes } from '../scripts/size.mjs';

const README = [
  '| package | what it gives you | min + gzip |',
  '|---|---|---|',
  '| [`@parley/core`](packages/core/README.md) | shared primitives | 4.00 kB (budget 4.50 kB) |',
  '| [`@parley/bus`](packages/bus/README.md) | a message bus | 3.00 kB (budget 3.50 kB) |',
].join('\n');
const BUDGETS = { '@parley/core': 4608, '@parley/bus': 3584 };
const sizes = (core: number, bus: number): Map<string, number> =>
  new Map([
    ['@parley/core', core],
    ['@parley/bus', bus],
  ]);

describe('findProblems (size.mjs --check)', () => {
  it('finds nothing when every package is within its budget and the README shows it', () => {
    expect(findProblems(sizes(4096, 3072), BUDGETS, README)).toEqual([]);
  });

  it('reports a package over its budget', () => {
    expect(findProblems(sizes(4096, 3600), BUDGETS, README)).toContain(
      '@parley/bus: 3.52 kB is over its budget of 3.50 kB',
    );
  });

  it('reports a package that has no budget', () => {
    const problems: string[] = findProblems(sizes(4096, 3072), { '@parley/core': 4608 }, README);
    expect(problems).toEqual([expect.stringMatching(/^@parley\/bus: no budget in size-budgets\.json/)]);
  });

  it('reports a budget that names no package', () => {
    const problems: string[] = findProblems(sizes(4096, 3072), { ...BUDGETS, '@parley/gone': 1024 }, README);
    expect(problems).toEqual([
      '@parley/gone: a budget in size-budgets.json for a package that does not exist',
    ]);
  });

  it('reports a README figure more than 5 % off the measured size, and accepts one within 5 %', () => {
    expect(findProblems(sizes(4096 * 1.04, 3072), BUDGETS, README)).toEqual([]);
    const problems: string[] = findProblems(sizes(4096 * 1.06, 3072), BUDGETS, README);
    expect(problems).toEqual([
      expect.stringMatching(/^@parley\/core: the README shows 4\.00 kB, measured 4\.24 kB/),
    ]);
  });

  it('reports a README budget that differs from size-budgets.json', () => {
    const problems: string[] = findProblems(sizes(4096, 3072), { ...BUDGETS, '@parley/core': 4672 }, README);
    expect(problems).toEqual([
      '@parley/core: the README shows a budget of 4.50 kB, size-budgets.json 4.56 kB',
    ]);
  });

  it('reports a package missing from the README table', () => {
    const withoutBus = README.split('\n').slice(0, 3).join('\n');
    expect(findProblems(sizes(4096, 3072), BUDGETS, withoutBus)).toEqual([
      '@parley/bus: no "x.xx kB (budget y.yy kB)" cell in the README package table',
    ]);
  });
});

describe('writeReadmeSizes (size.mjs --readme)', () => {
  it('replaces only the size cell of the named packages', () => {
    const written: string = writeReadmeSizes(README, new Map([['@parley/bus', sizeCell(3174, 3520)]]));
    expect(written.split('\n')[3]).toBe(
      '| [`@parley/bus`](packages/bus/README.md) | a message bus | 3.10 kB (budget 3.44 kB) |',
    );
    expect(written.split('\n').filter((line, i) => line !== README.split('\n')[i])).toHaveLength(1);
    expect(readReadmeSizes(written).get('@parley/core')).toBe('4.00 kB (budget 4.50 kB)');
  });
});
