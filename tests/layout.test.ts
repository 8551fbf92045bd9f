// The packages sit on disk by ring (packages/<ring>/<name>), so a file listing shows the layering, and
// the dependencies between them follow the rings: the protocols depend only on protocols, the runtime on
// protocols, an integration on protocols and the runtime (and, within its own ring, on a sibling).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageFolders, root } from '../scripts/packages.mjs';

/** The rings, innermost first; the rank is how far out a ring sits. */
const RINGS: Readonly<Record<string, number>> = {
  protocols: 0,
  runtime: 1,
  stores: 2,
  adapters: 2,
  bridges: 2,
  engines: 2,
  oversight: 2,
};

interface Manifest {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

interface Placed {
  readonly short: string;
  readonly ring: string;
  readonly manifest: Manifest;
}

const folders = packageFolders();
const placed: Placed[] = folders.map(({ short, ring, dir }) => ({
  short,
  ring,
  manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest,
}));

/** Each wrong dependency between rings among `packages`, as "from → to (why)". */
function ringViolations(packages: readonly Placed[]): string[] {
  const ringOf = new Map(packages.map((p) => [p.manifest.name, p.ring]));
  const found: string[] = [];
  for (const { short, ring, manifest } of packages) {
    const deps = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
    for (const dep of deps) {
      const depRing = ringOf.get(dep);
      if (depRing === undefined) continue;
      const from = `${ring}/${short}`;
      const to = `${depRing}/${dep.slice('@parley/'.length)}`;
      if ((RINGS[depRing] ?? 99) > (RINGS[ring] ?? -1)) found.push(`${from} → ${to} (points outward)`);
      else if (RINGS[ring] === 2 && RINGS[depRing] === 2 && depRing !== ring)
        found.push(`${from} → ${to} (one integration ring on another)`);
    }
  }
  return found;
}

describe('the layout on disk', () => {
  it('has only ring folders under packages/, each holding packages', () => {
    const entries = readdirSync(join(root, 'packages'), { withFileTypes: true });
    const loose = entries.filter((e) => !e.isDirectory() || !(e.name in RINGS)).map((e) => e.name);
    expect(loose).toEqual([]);
    const empty = Object.keys(RINGS).filter((ring) => !folders.some((f) => f.ring === ring));
    expect(empty).toEqual([]);
  });

  it('names every package after its folder, and its repository directory after its path', () => {
    const wrong = folders.flatMap(({ short, ring, dir }) => {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest & {
        readonly repository?: { readonly directory?: string };
      };
      const problems: string[] = [];
      if (manifest.name !== `@parley/${short}`) problems.push(`${ring}/${short}: named ${manifest.name}`);
      if (manifest.repository?.directory !== `packages/${ring}/${short}`)
        problems.push(`${ring}/${short}: repository.directory ${manifest.repository?.directory}`);
      return problems;
    });
    expect(wrong).toEqual([]);
  });

  it('builds a package with the siblings it needs first, so `npm run build -w` works on a fresh clone', () => {
    const wrong = folders.flatMap(({ short, ring, dir }) => {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest & {
        readonly scripts?: Record<string, string>;
      };
      const expected = `node ../../../scripts/build.mjs @parley/${short}`;
      return manifest.scripts?.build === expected
        ? []
        : [`${ring}/${short}: build is ${manifest.scripts?.build}`];
    });
    expect(wrong).toEqual([]);
  });

  it('has dependencies that point inward, never from one integration ring to another', () => {
    expect(ringViolations(placed)).toEqual([]);
  });

  it('names a dependency that points outward or across integration rings', () => {
    const made = (short: string, ring: string, deps: string[] = []): Placed => ({
      short,
      ring,
      manifest: { name: `@parley/${short}`, dependencies: Object.fromEntries(deps.map((d) => [d, '*'])) },
    });
    const packages = [
      made('core', 'protocols', ['@parley/redis']),
      made('redis', 'stores'),
      made('slack', 'adapters', ['@parley/redis', '@parley/core']),
      made('console', 'oversight', ['@parley/ledger']),
      made('ledger', 'oversight', ['@parley/core']),
    ];
    expect(ringViolations(packages)).toEqual([
      'protocols/core → stores/redis (points outward)',
      'adapters/slack → stores/redis (one integration ring on another)',
    ]);
  });
});
