// Size budgets: each package's built ESM entry, bundled with its dependencies (zod, eventemitter3,
// nanoid, sibling @parley/* packages, peers) left external, minified and gzipped, must stay within
// its budget in size-budgets.json, and the README's package table must show the measured sizes.
// Run after `npm run build`.
//
//   node scripts/size.mjs                 prints measured size, budget and README figure per package
//   node scripts/size.mjs --check         exits 1 when a package is over its budget or has none, a
//                                         budget names no package, or the README is out of date
//   node scripts/size.mjs --readme        writes the measured sizes and budgets into README.md
//   node scripts/size.mjs --write [name…] sets the budgets of the named packages (all without a
//                                         name) to their size + 10 %, rounded up to 64 B; then --readme
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { listPackages, root } from './packages.mjs';

const budgetsFile = join(root, 'size-budgets.json');
const readmeFile = join(root, 'README.md');
/** How far the README's figure may drift from the measured size before --check asks for --readme. */
export const README_TOLERANCE = 0.05;

/** Minified and gzipped bytes of a built package's ESM entry, its dependencies left out. */
export async function measure(pkg) {
  const entry = join(pkg.dir, 'dist', 'index.js');
  if (!existsSync(entry)) throw new Error(`${pkg.name} is not built: run npm run build first`);
  const external = [
    ...Object.keys(pkg.manifest.dependencies ?? {}),
    ...Object.keys(pkg.manifest.peerDependencies ?? {}),
  ];
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    external,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length };
}

export const kb = (bytes) => `${(bytes / 1024).toFixed(2)} kB`;

/** The README cell of a package: measured size, then budget. */
export const sizeCell = (gzipped, budget) => `${kb(gzipped)} (budget ${kb(budget)})`;

// A row of the README's package table: | [`@parley/x`](…) | what it gives you | 4.54 kB (budget 5.00 kB) |
const ROW = /^\| \[`(@parley\/[a-z-]+)`\][^|]*\|[^|]*\| ([^|]*) \|$/;
const CELL = /^(\d+\.\d\d) kB \(budget (\d+\.\d\d) kB\)$/;

/** The README's size cell of every package, by name. */
export function readReadmeSizes(text) {
  const cells = new Map();
  for (const line of text.split('\n')) {
    const row = ROW.exec(line);
    if (row) cells.set(row[1], row[2].trim());
  }
  return cells;
}

/** The README with every package's size cell replaced by `cells.get(name)`. */
export function writeReadmeSizes(text, cells) {
  return text
    .split('\n')
    .map((line) => {
      const row = ROW.exec(line);
      if (!row || !cells.has(row[1])) return line;
      return `${line.slice(0, line.lastIndexOf(row[2]))}${cells.get(row[1])} |`;
    })
    .join('\n');
}

/** What is wrong with one package's figures; an empty list when nothing is. */
export function problems({ gzipped, budget, readmeCell }) {
  const found = [];
  if (budget === undefined)
    found.push('no budget in size-budgets.json (run node scripts/size.mjs --write <name>)');
  else if (gzipped > budget) found.push(`${kb(gzipped)} is over its budget of ${kb(budget)}`);
  const cell = CELL.exec(readmeCell ?? '');
  if (!cell) found.push('no "x.xx kB (budget y.yy kB)" cell in the README package table');
  else {
    const shown = Number(cell[1]) * 1024;
    if (Math.abs(shown - gzipped) > gzipped * README_TOLERANCE) {
      found.push(
        `the README shows ${cell[1]} kB, measured ${kb(gzipped)} (run node scripts/size.mjs --readme)`,
      );
    }
    if (budget !== undefined && cell[2] !== (budget / 1024).toFixed(2)) {
      found.push(`the README shows a budget of ${cell[2]} kB, size-budgets.json ${kb(budget)}`);
    }
  }
  return found;
}

/**
 * Every problem, as "name: what", given the gzipped size of each package (by name), the budgets
 * (by name) and the README text: a package with no budget, over it or shown wrongly in the README,
 * and a budget for a package that does not exist.
 */
export function findProblems(gzippedSizes, budgets, readme) {
  const cells = readReadmeSizes(readme);
  const found = [];
  for (const [name, gzipped] of gzippedSizes) {
    for (const problem of problems({ gzipped, budget: budgets[name], readmeCell: cells.get(name) })) {
      found.push(`${name}: ${problem}`);
    }
  }
  for (const name of Object.keys(budgets)) {
    if (gzippedSizes.has(name)) continue;
    found.push(`${name}: a budget in size-budgets.json for a package that does not exist`);
  }
  return found;
}

async function main(args) {
  const packages = listPackages();
  const budgets = JSON.parse(readFileSync(budgetsFile, 'utf8'));
  const sizes = new Map();
  for (const pkg of packages) sizes.set(pkg.name, await measure(pkg));

  const writeIndex = args.indexOf('--write');
  if (writeIndex !== -1) {
    const named = args.slice(writeIndex + 1).filter((a) => !a.startsWith('--'));
    const chosen = named.map((n) => (n.startsWith('@') ? n : `@parley/${n}`));
    const unknown = chosen.filter((n) => !sizes.has(n));
    if (unknown.length > 0) throw new Error(`No such package: ${unknown.join(', ')}`);
    for (const [name, size] of sizes) {
      if (chosen.length > 0 && !chosen.includes(name)) continue;
      budgets[name] = Math.ceil((size.gzipped * 1.1) / 64) * 64;
    }
    const ordered = Object.fromEntries(
      packages.filter((p) => budgets[p.name] !== undefined).map((p) => [p.name, budgets[p.name]]),
    );
    writeFileSync(budgetsFile, `${JSON.stringify(ordered, null, 2)}\n`);
    console.log(
      `size-budgets.json: budgets of ${chosen.length === 0 ? 'every package' : chosen.join(', ')} set`,
    );
  }

  let readme = readFileSync(readmeFile, 'utf8');
  if (writeIndex !== -1 || args.includes('--readme')) {
    const cells = new Map(
      [...sizes]
        .filter(([name]) => budgets[name] !== undefined)
        .map(([name, s]) => [name, sizeCell(s.gzipped, budgets[name])]),
    );
    readme = writeReadmeSizes(readme, cells);
    writeFileSync(readmeFile, readme);
    console.log('README.md: package sizes written');
  }

  const readmeCells = readReadmeSizes(readme);
  console.log(
    `${'package'.padEnd(20)} ${'minified'.padStart(10)} ${'gzipped'.padStart(10)} ${'budget'.padStart(10)}  README`,
  );
  for (const pkg of packages) {
    const { minified, gzipped } = sizes.get(pkg.name);
    const budget = budgets[pkg.name];
    const ok = problems({ gzipped, budget, readmeCell: readmeCells.get(pkg.name) }).length === 0;
    console.log(
      `${pkg.name.padEnd(20)} ${kb(minified).padStart(10)} ${kb(gzipped).padStart(10)} ${(budget === undefined ? 'none' : kb(budget)).padStart(10)}  ${readmeCells.get(pkg.name) ?? '—'} ${ok ? '✓' : '✗'}`,
    );
  }
  const gzippedSizes = new Map([...sizes].map(([name, size]) => [name, size.gzipped]));
  const failures = findProblems(gzippedSizes, budgets, readme);
  if (failures.length === 0) {
    console.log('\nEvery package is within its budget, and the README shows its size.');
    return;
  }
  console.error(`\n${failures.join('\n')}`);
  if (args.includes('--check')) process.exit(1);
}

if (process.argv[1] === new URL(import.meta.url).pathname) await main(process.argv.slice(2));
