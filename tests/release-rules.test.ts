// The publish rules of scripts/release-rules.mjs, on made-up manifests and listings: CI applies
// them to the real packages through `npm run check:packages`.
import { describe, expect, it } from 'vitest';
import {
  isAlreadyPublished,
  manifestProblems,
  releasePlanProblems,
  tarballProblems,
  versionGroupProblems,
  // @ts-expect-error: a plain ESM script without type declarations
} from '../scripts/release-rules.mjs';

const manifest = {
  name: '@parley/confirm',
  version: '0.0.0',
  description: 'Human confirmation gates for destructive actions over chat channels.',
  license: 'MIT',
  type: 'module',
  sideEffects: false,
  repository: {
    type: 'git',
    url: 'git+https://github.com/parley-sdk/parley.git',
    directory: 'packages/protocols/confirm',
  },
  engines: { node: '>=20' },
  files: ['dist'],
  exports: {
    './package.json': './package.json',
    '.': {
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
    },
  },
  dependencies: { '@parley/core': '^0.0.0', '@parley/bus': '^0.0.0', zod: '^4.1.12' },
  publishConfig: { access: 'public' },
};
const versions = new Map([
  ['@parley/core', '0.0.0'],
  ['@parley/bus', '0.0.0'],
  ['@parley/confirm', '0.0.0'],
]);
const confirm = (changes: Record<string, unknown> = {}) => ({
  name: '@parley/confirm',
  short: 'confirm',
  ring: 'protocols',
  manifest: { ...manifest, ...changes },
});

describe('manifestProblems', () => {
  it('accepts a manifest with everything a publish needs', () => {
    expect(manifestProblems(confirm(), versions)).toEqual([]);
  });

  it('asks for public access, which a scoped package does not have by default', () => {
    expect(manifestProblems(confirm({ publishConfig: undefined }), versions)).toEqual([
      'publishConfig.access must be public (a scoped package is private by default)',
    ]);
  });

  it('refuses an exact or stale range on a sibling, and leaves other dependencies alone', () => {
    const problems = manifestProblems(
      confirm({ dependencies: { '@parley/core': '0.0.0', '@parley/bus': '^0.0.1', zod: '4' } }),
      versions,
    );
    expect(problems).toEqual([
      'dependencies.@parley/core must be ^0.0.0 (is 0.0.0)',
      'dependencies.@parley/bus must be ^0.0.0 (is ^0.0.1)',
    ]);
  });

  it('refuses a package that publishes more than dist, or has side effects', () => {
    expect(manifestProblems(confirm({ files: ['dist', 'src'], sideEffects: true }), versions)).toEqual([
      'sideEffects must be false',
      'files must be ["dist"]',
    ]);
  });

  it('refuses a private package, a missing description and a wrong repository directory', () => {
    const problems = manifestProblems(
      confirm({
        private: true,
        description: '',
        repository: { url: 'x', directory: 'packages/protocols/bus' },
      }),
      versions,
    );
    expect(problems).toEqual([
      'must not be private',
      'needs a description',
      'repository.directory must be packages/protocols/confirm',
    ]);
  });
});

describe('tarballProblems', () => {
  const good = [
    'LICENSE',
    'README.md',
    'package.json',
    'dist/index.js',
    'dist/index.js.map',
    'dist/index.cjs',
    'dist/index.d.ts',
    'dist/index.d.cts',
  ];

  it('accepts dist, package.json, README.md and LICENSE', () => {
    expect(tarballProblems(good)).toEqual([]);
  });

  it('refuses sources, tests and stray files', () => {
    expect(tarballProblems([...good, 'src/index.ts', 'test/gate.test.ts', '.env'])).toEqual([
      'unexpected files in the tarball: src/index.ts, test/gate.test.ts, .env',
    ]);
  });

  it('asks for both builds, their declarations, the readme and the licence', () => {
    expect(tarballProblems(['package.json', 'dist/index.js'])).toEqual([
      'missing from the tarball: dist/index.cjs, dist/index.d.ts, dist/index.d.cts, README.md, LICENSE',
    ]);
  });
});

describe('releasePlanProblems', () => {
  const packages = [
    confirm(),
    { name: '@parley/fsm', short: 'fsm', ring: 'protocols', manifest: { ...manifest, version: '0.1.0' } },
  ];

  it('accepts a never-released package with a pending release', () => {
    const plan = {
      releases: [{ name: '@parley/confirm', type: 'minor', oldVersion: '0.0.0', newVersion: '0.1.0' }],
    };
    expect(releasePlanProblems(packages, plan)).toEqual([]);
  });

  it('refuses a never-released package that no changeset releases, and ignores released ones', () => {
    const plan = {
      releases: [{ name: '@parley/confirm', type: 'none', oldVersion: '0.0.0', newVersion: '0.0.0' }],
    };
    expect(releasePlanProblems(packages, plan)).toEqual([
      '@parley/confirm has never been released and no changeset releases it (add one: npx changeset)',
    ]);
  });
});

describe('releasePlanProblems: first versions', () => {
  it('refuses a first release that would not be 0.1.0 (a sibling peer out of range makes it major)', () => {
    const plan = {
      releases: [{ name: '@parley/confirm', type: 'major', oldVersion: '0.0.0', newVersion: '1.0.0' }],
    };
    expect(releasePlanProblems([confirm()], plan)).toEqual([
      "@parley/confirm's first release would be 1.0.0, not 0.1.0",
    ]);
  });
});

describe('manifestProblems: sibling peers', () => {
  it('accepts a sibling peer range that holds its version, and refuses one that does not', () => {
    const withPeers = (range: string): string[] =>
      manifestProblems(confirm({ peerDependencies: { '@parley/core': range, ioredis: '^5' } }), versions);
    expect(withPeers('>=0.0.0 <1.0.0')).toEqual([]);
    expect(withPeers('^0.2.0')).toEqual(['peerDependencies.@parley/core must accept 0.0.0 (is ^0.2.0)']);
  });
});

describe('isAlreadyPublished', () => {
  it("recognises npm's refusal to publish over a published version, and nothing else", () => {
    expect(
      isAlreadyPublished('npm error You cannot publish over the previously published versions: 1.3.0.'),
    ).toBe(true);
    expect(isAlreadyPublished('npm error code E404\nnpm error 404 Not Found')).toBe(false);
  });
});

describe('versionGroupProblems', () => {
  const packages = [{ name: '@parley/core' }, { name: '@parley/confirm' }, { name: '@parley/telegram' }];

  it('accepts one fixed group that covers every package', () => {
    expect(versionGroupProblems(packages, { fixed: [['@parley/*']], linked: [] })).toEqual([]);
    expect(
      versionGroupProblems(packages, {
        fixed: [['@parley/core', '@parley/confirm', '@parley/telegram']],
      }),
    ).toEqual([]);
  });

  it('names a package left out of the group, a second group and a linked group', () => {
    expect(versionGroupProblems(packages, { fixed: [['@parley/core', '@parley/confirm']] })).toEqual([
      '@parley/telegram is not in the fixed version group',
    ]);
    expect(versionGroupProblems(packages, { fixed: [['@parley/*'], ['x']], linked: [['y']] })).toEqual([
      '.changeset/config.json must have one fixed group, has 2',
      '.changeset/config.json must have no linked groups',
    ]);
    expect(versionGroupProblems(packages, { fixed: [] })).toContain(
      '.changeset/config.json must have one fixed group, has 0',
    );
  });

  it('holds for the repository: every @parley package moves in one version group', async () => {
    const { readFileSync } = await import('node:fs');
    const config = JSON.parse(readFileSync(new URL('../.changeset/config.json', import.meta.url), 'utf8'));
    // @ts-expect-error: a plain ESM script without type declarations
    const { listPackages } = await import('../scripts/packages.mjs');
    expect(versionGroupProblems(listPackages(), config)).toEqual([]);
  });
});
