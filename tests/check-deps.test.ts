// The rules of scripts/check-deps.mjs on made-up manifests, then the rule applied to every package
// and example in the repository (so `npm test` fails when a manifest drifts from its imports).
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { checkRepository, findDependencyProblems, importsOf, packageOf } from '../scripts/check-deps.mjs';

describe('importsOf', () => {
  it('reads static, type-only, re-exported, dynamic and required imports, not comments', () => {
    const text = [
      "import { a } from 'zod';",
      "import type { B } from '@parley/bus';",
      "export { c } from '@noble/hashes/sha2.js';",
      "const d = await import('eventemitter3');",
      "const e = require('nanoid');",
      "import { readFileSync } from 'node:fs';",
      "import { join } from 'path';",
      "import { f } from './local.js';",
      "/** @example\n * import { g } from 'valibot';\n */",
      "// import { h } from 'ioredis';",
    ].join('\n');
    expect([...importsOf(text)].sort()).toEqual([
      '@noble/hashes',
      '@parley/bus',
      'eventemitter3',
      'nanoid',
      'zod',
    ]);
  });

  it('names the package of a deep import and ignores built-ins and relative paths', () => {
    expect([packageOf('@scope/name/deep/x.js'), packageOf('name/deep'), packageOf('node:fs')]).toEqual([
      '@scope/name',
      'name',
      undefined,
    ]);
    expect([packageOf('fs/promises'), packageOf('./x.js')]).toEqual([undefined, undefined]);
  });
});

describe('findDependencyProblems', () => {
  it('finds nothing when the dependencies and peers are exactly what the source imports', () => {
    const manifest = { dependencies: { zod: '^4' }, peerDependencies: { ioredis: '^5' } };
    expect(findDependencyProblems({ manifest, source: new Set(['zod', 'ioredis']) })).toEqual([]);
  });

  it('reports a dependency the source never imports', () => {
    const manifest = { dependencies: { zod: '^4', nanoid: '^3' } };
    expect(findDependencyProblems({ manifest, source: new Set(['nanoid']) })).toEqual([
      'depends on zod but never imports it',
    ]);
  });

  it('reports an import with no dependency, and a test import outside dependencies and the root tools', () => {
    const problems = findDependencyProblems({
      manifest: {},
      source: new Set(['zod']),
      test: new Set(['vitest', 'jest']),
      testMay: new Set(['vitest']),
    });
    expect(problems).toEqual([
      'imports zod but does not depend on it',
      'its tests import jest, which it does not depend on',
    ]);
  });

  it('counts a dependency imported only by the tests as used, and reports an unused devDependency', () => {
    const manifest = { dependencies: { zod: '^4' }, devDependencies: { tsx: '^4' } };
    expect(findDependencyProblems({ manifest, source: new Set(), test: new Set(['zod']) })).toEqual([
      'has a devDependency on tsx it never imports',
    ]);
  });

  it("accepts an optional peer the source never imports only when the package's tests use it", () => {
    const manifest = {
      peerDependencies: { pg: '^8', ioredis: '^5' },
      peerDependenciesMeta: { pg: { optional: true }, ioredis: { optional: true } },
      devDependencies: { pg: '^8', '@types/pg': '^8', '@types/ws': '^8' },
    };
    expect(findDependencyProblems({ manifest, source: new Set(), testedWith: new Set(['pg']) })).toEqual([
      'depends on ioredis but never imports it',
      'has a devDependency on @types/ws it never imports',
    ]);
  });

  it('does not excuse a required peer the source never imports', () => {
    const manifest = { peerDependencies: { pg: '^8' } };
    expect(findDependencyProblems({ manifest, source: new Set(), testedWith: new Set(['pg']) })).toEqual([
      'depends on pg but never imports it',
    ]);
  });
});

describe('the repository', () => {
  it('has every package and example depending on exactly what it imports', () => {
    expect(checkRepository()).toEqual([]);
  });
});
