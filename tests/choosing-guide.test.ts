// guides/choosing-packages.md, read the way a reader uses it: find the job, run its install line,
// open its "start with" link. Every package is somewhere in it, every install line names real
// packages and the peers they need, and every link opens a file that exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageFolders, packagePath } from '../scripts/packages.mjs';

const ROOT = join(import.meta.dirname, '..');
const GUIDE = join(ROOT, 'guides', 'choosing-packages.md');
const text = readFileSync(GUIDE, 'utf8');

interface Manifest {
  readonly name: string;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const manifests = new Map<string, Manifest>(
  packageFolders().map(({ dir }) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    return [manifest.name, manifest];
  }),
);

/** The rows of the markdown table under a `## heading`, as lists of cells. */
function tableUnder(heading: string): string[][] {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`guides/choosing-packages.md has no "## ${heading}" section`);
  const rows: string[][] = [];
  for (const line of text.slice(start).split('\n').slice(2)) {
    if (line.startsWith('## ')) break;
    if (!line.startsWith('|') || line.startsWith('|---')) continue;
    rows.push(line.split(' | ').map((cell) => cell.replace(/^\| ?| ?\|$/g, '').trim()));
  }
  return rows.slice(1);
}

const jobs = tableUnder('By job');
const owns = tableUnder('What each package owns, and when not to use it');

describe('choosing between the packages', () => {
  it('has a job for every package', () => {
    const installed = new Set(
      jobs.flatMap(([, install]) => (install ?? '').match(/@parley\/[a-z-]+/g) ?? []),
    );
    expect([...manifests.keys()].filter((name) => !installed.has(name))).toEqual([]);
  });

  it('says what every package owns', () => {
    const named = new Set(
      owns.flatMap(([cell]) => [...(cell ?? '').matchAll(/`([a-z-]+)`/g)].map((m) => `@parley/${m[1]}`)),
    );
    expect([...manifests.keys()].filter((name) => !named.has(name))).toEqual([]);
    expect([...named].filter((name) => !manifests.has(name))).toEqual([]);
  });

  it('gives install lines that name real packages and every peer they need', () => {
    const problems: string[] = [];
    for (const [job, install] of jobs) {
      const line = /^`(npm install(?: -D)? [^`]+)`$/.exec(install ?? '')?.[1];
      if (line === undefined) {
        problems.push(`${job}: "${install}" is not one npm install line`);
        continue;
      }
      const names = line
        .split(' ')
        .slice(2)
        .filter((word) => word !== '-D');
      for (const name of names.filter((word) => word.startsWith('@parley/'))) {
        const manifest = manifests.get(name);
        if (manifest === undefined) {
          problems.push(`${job}: ${name} is not a package`);
          continue;
        }
        for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
          if (manifest.peerDependenciesMeta?.[peer]?.optional === true) continue;
          if (!names.includes(peer)) problems.push(`${job}: ${name} needs its peer ${peer}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('starts every job at a guide or README that exists', () => {
    const broken = jobs
      .map(([job, , start]) => [job, /\]\(([^)#]+)\)/.exec(start ?? '')?.[1]] as const)
      .filter(([, link]) => link === undefined || !existsSync(join(dirname(GUIDE), link)));
    expect(broken).toEqual([]);
    expect(jobs.length).toBeGreaterThanOrEqual(manifests.size - 5);
  });
});

describe('every package README', () => {
  it('links the guides and its API report', () => {
    const missing: string[] = [];
    for (const name of manifests.keys()) {
      const dir = packagePath(name.replace('@parley/', ''));
      const readme = readFileSync(join(ROOT, dir, 'README.md'), 'utf8');
      const section = readme.slice(readme.indexOf('\n## Guides and API\n'));
      if (!readme.includes('\n## Guides and API\n')) missing.push(`${name}: no "Guides and API" section`);
      if (!section.includes('/guides/choosing-packages.md)'))
        missing.push(`${name}: no link to the choosing guide`);
      for (const report of readdirSync(join(ROOT, dir, 'api'))) {
        if (!section.includes(`/${dir}/api/${report})`)) missing.push(`${name}: no link to api/${report}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
