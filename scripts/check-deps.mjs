// Every package and example depends on exactly what it imports: a dependency (or peer) that no
// source file imports is an install cost for nothing, and an import with no dependency works in
// the monorepo only by hoisting and breaks for whoever installs the package. Imports are read with
// TypeScript's own scanner (comments and TSDoc examples do not count; `import type` does, since
// the published .d.ts needs it).
//
//   node scripts/check-deps.mjs    prints each problem and exits 1 when there is any
//
// Packages (packages/*): imports in src/ must be dependencies or peerDependencies; each of those
// must be imported in src/, except an optional peer that the package's tests import (the package
// takes an instance of it from the host, such as a pg Pool, and the range says which versions its
// tests run); a devDependency must be imported by src/ or test/. Examples (examples/*): the same over src/ and test/, where test/ may
// also use the root's devDependencies (vitest and the like).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { packageFolders } from './packages.mjs';

const root = new URL('..', import.meta.url).pathname;

/** The package a module specifier names, or undefined for relative paths and Node built-ins. */
export function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return undefined;
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0])) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The packages a source text imports (static, dynamic, `export … from`, `import type`, require). */
export function importsOf(text) {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return new Set(importedFiles.map((f) => packageOf(f.fileName)).filter((name) => name !== undefined));
}

/**
 * What is wrong with one manifest, given the packages its shipped code imports (`source`) and
 * those only its tests import (`test`), as sentences; `testMay` are the extra packages tests may
 * use without declaring them (the root's devDependencies).
 */
export function findDependencyProblems({
  manifest,
  source,
  test = new Set(),
  testMay = new Set(),
  testedWith = new Set(),
}) {
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ]);
  const dev = new Set(Object.keys(manifest.devDependencies ?? {}));
  const found = [];
  for (const name of [...source].sort()) {
    if (!declared.has(name)) found.push(`imports ${name} but does not depend on it`);
  }
  for (const name of [...test].sort()) {
    if (!declared.has(name) && !dev.has(name) && !testMay.has(name)) {
      found.push(`its tests import ${name}, which it does not depend on`);
    }
  }
  const optionalPeer = (name) => manifest.peerDependenciesMeta?.[name]?.optional === true;
  for (const name of [...declared].sort()) {
    if (source.has(name) || test.has(name)) continue;
    if (optionalPeer(name) && testedWith.has(name)) continue; // an instance the host passes in
    found.push(`depends on ${name} but never imports it`);
  }
  const used = (name) => source.has(name) || test.has(name) || testedWith.has(name);
  for (const name of [...dev].sort()) {
    const typesOf = name.startsWith('@types/') ? name.slice('@types/'.length) : undefined; // @types/pg types pg
    if (!used(name) && !(typesOf !== undefined && used(typesOf))) {
      found.push(`has a devDependency on ${name} it never imports`);
    }
  }
  return found;
}

function importsUnder(dir) {
  const found = new Set();
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(entry.name)) continue;
    for (const name of importsOf(readFileSync(join(entry.parentPath, entry.name), 'utf8'))) found.add(name);
  }
  return found;
}

/** Every problem in the repository, as "package.json path: what". */
export function checkRepository() {
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const testMay = new Set(Object.keys(rootManifest.devDependencies ?? {}));
  const found = [];
  const folders = {
    packages: packageFolders().map(({ short, ring, dir }) => ({ name: `${ring}/${short}`, dir })),
    examples: readdirSync(join(root, 'examples'))
      .sort()
      .map((name) => ({ name, dir: join(root, 'examples', name) })),
  };
  for (const group of ['packages', 'examples']) {
    for (const { name, dir } of folders[group]) {
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      const source = importsUnder(join(dir, 'src'));
      // A package's own tests run against the workspace; an example's tests are part of the example.
      const test = group === 'examples' ? importsUnder(join(dir, 'test')) : new Set();
      // A package's tests may use its devDependencies and the optional peers it takes instances of.
      const testedWith = group === 'packages' ? importsUnder(join(dir, 'test')) : new Set();
      for (const problem of findDependencyProblems({ manifest, source, test, testMay, testedWith })) {
        found.push(`${group}/${name}/package.json: ${problem}`);
      }
    }
  }
  return found;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const problems = checkRepository();
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
  console.log('Every package and example depends on exactly what it imports.');
}
