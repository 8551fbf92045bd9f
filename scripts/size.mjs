// Size budgets, two per package, and what installing it costs:
//   alone      its built ESM entry bundled with its dependencies left out (zod, eventemitter3,
//              nanoid, @noble/hashes, sibling @parley/* packages, peers), minified and gzipped:
//              the package's own code;
//   bundled    the same entry bundled for the browser *with* its run-time dependencies (siblings,
//              zod, …; only server-side peers such as ioredis left out), minified and gzipped:
//              what an app that imports everything from it ships;
//   install    the bytes `npm install <package>` writes: its tarball's files plus every package
//              it pulls in (dependencies and required peers, as the workspace has them installed).
// Each stays within its budget in size-budgets.json (install has none), and the README's package
// table shows the measured figures. Run after `npm run build`.
//
//   node scripts/size.mjs                 prints measured sizes, budgets and README figures
//   node scripts/size.mjs --check         exits 1 when a figure is over its budget or has none, a
//                                         budget names no package, or the README is out of date
//   node scripts/size.mjs --readme        writes the measured sizes and budgets into README.md
//   node scripts/size.mjs --write [name…] sets the budgets of the named packages (all without a
//                                         name) to their size + 10 %, rounded up to 64 B; then --readme
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { listPackages, root } from './packages.mjs';

const budgetsFile = join(root, 'size-budgets.json');
const readmeFile = join(root, 'README.md');
/** How far a README figure may drift from the measured size before --check asks for --readme. */
export const README_TOLERANCE = 0.05;
/** The budgeted figures, in the order of the README's columns. */
export const BUDGETED = ['alone', 'bundled'];

async function gzippedBundle(entry, options) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    write: false,
    logLevel: 'silent',
    ...options,
  });
  const code = result.outputFiles[0].contents;
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length };
}

/** The peers an app must install next to the package (optional ones it may leave out). */
const requiredPeers = (manifest) =>
  Object.keys(manifest.peerDependencies ?? {}).filter(
    (name) => manifest.peerDependenciesMeta?.[name]?.optional !== true,
  );

/** Bytes of every file under `dir`, leaving out nested node_modules. */
function bytesUnder(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? bytesUnder(path) : statSync(path).size;
  }
  return total;
}

/** The directory of package `name` as Node resolves it from `fromDir`. */
function packageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === dirname(dir)) throw new Error(`${name} is not installed (from ${fromDir})`);
  }
}

/** The bytes of a workspace package's tarball files (dist, manifest, readme, licence). */
function shippedBytes(pkg) {
  const files = ['package.json', 'README.md', 'LICENSE'].filter((f) => existsSync(join(pkg.dir, f)));
  return files.reduce((sum, f) => sum + statSync(join(pkg.dir, f)).size, bytesUnder(join(pkg.dir, 'dist')));
}

/** What `npm install <pkg>` writes: the package's shipped files and everything it pulls in. */
export function installBytes(pkg) {
  const siblings = new Map(listPackages().map((p) => [p.name, p]));
  let total = shippedBytes(pkg);
  const seen = new Set([pkg.name]);
  const visit = (manifest, fromDir) => {
    for (const name of [...Object.keys(manifest.dependencies ?? {}), ...requiredPeers(manifest)]) {
      if (seen.has(name)) continue;
      seen.add(name);
      const dir = packageDir(name, fromDir);
      // A sibling counts as its tarball would; anything else as installed.
      total += siblings.has(name) ? shippedBytes(siblings.get(name)) : bytesUnder(dir);
      visit(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')), dir);
    }
  };
  visit(pkg.manifest, pkg.dir);
  return total;
}

/** Node's built-ins, never bundled: an entry that needs them (the console's node:http server) runs on Node. */
const BUILTINS = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/** The measured figures of a built package (see the top of this file). */
export async function measure(pkg) {
  const entry = join(pkg.dir, 'dist', 'index.js');
  if (!existsSync(entry)) throw new Error(`${pkg.name} is not built: run npm run build first`);
  const alone = await gzippedBundle(entry, {
    platform: 'neutral',
    external: [
      ...Object.keys(pkg.manifest.dependencies ?? {}),
      ...Object.keys(pkg.manifest.peerDependencies ?? {}),
      ...BUILTINS,
    ],
  });
  const serverPeers = Object.keys(pkg.manifest.peerDependencies ?? {}).filter(
    (n) => !n.startsWith('@parley/'),
  );
  const bundled = await gzippedBundle(entry, {
    platform: 'browser',
    external: [...serverPeers, ...BUILTINS],
  });
  return {
    minified: alone.minified,
    alone: alone.gzipped,
    bundled: bundled.gzipped,
    install: installBytes(pkg),
  };
}

export const kb = (bytes) => `${(bytes / 1024).toFixed(2)} kB`;
export const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

/** The README cell of a budgeted figure: measured size, then budget. */
export const sizeCell = (gzipped, budget) => `${kb(gzipped)} (budget ${kb(budget)})`;

// A row of the README's package table:
// | [`@parley/x`](…) | what it gives you | 4.54 kB (budget 5.00 kB) | 9.10 kB (budget 10.00 kB) | 1.20 MB |
const ROW = /^\| \[`(@parley\/[a-z-]+)`\][^|]*\|[^|]*\| ([^|]*) \| ([^|]*) \| ([^|]*) \|$/;
const CELL = /^(\d+\.\d\d) kB \(budget (\d+\.\d\d) kB\)$/;
const MB_CELL = /^(\d+\.\d\d) MB$/;

/** The README's figure cells of every package, by name: { alone, bundled, install }. */
export function readReadmeSizes(text) {
  const cells = new Map();
  for (const line of text.split('\n')) {
    const row = ROW.exec(line);
    if (row) cells.set(row[1], { alone: row[2].trim(), bundled: row[3].trim(), install: row[4].trim() });
  }
  return cells;
}

/** The README with every named package's figure cells replaced by `cells.get(name)`. */
export function writeReadmeSizes(text, cells) {
  return text
    .split('\n')
    .map((line) => {
      const row = ROW.exec(line);
      if (!row || !cells.has(row[1])) return line;
      const { alone, bundled, install } = cells.get(row[1]);
      const head = line.slice(0, line.length - `${row[2]} | ${row[3]} | ${row[4]} |`.length);
      return `${head}${alone} | ${bundled} | ${install} |`;
    })
    .join('\n');
}

const drifted = (shown, measured) => Math.abs(shown - measured) > measured * README_TOLERANCE;

/**
 * What is wrong with one package's figures; an empty list when nothing is. `sizes` holds the
 * measured { alone, bundled, install }, `budget` the package's { alone, bundled } (or undefined),
 * `cells` its README cells (or undefined).
 */
export function problems({ sizes, budget, cells }) {
  const found = [];
  if (budget === undefined)
    found.push('no budget in size-budgets.json (run node scripts/size.mjs --write <name>)');
  if (cells === undefined) return [...found, 'no row with three figures in the README package table'];
  for (const figure of BUDGETED) {
    const limit = budget?.[figure];
    if (budget !== undefined && limit === undefined) found.push(`no ${figure} budget in size-budgets.json`);
    else if (limit !== undefined && sizes[figure] > limit) {
      found.push(`${figure}: ${kb(sizes[figure])} is over its budget of ${kb(limit)}`);
    }
    const cell = CELL.exec(cells[figure]);
    if (!cell) {
      found.push(`${figure}: no "x.xx kB (budget y.yy kB)" cell in the README package table`);
      continue;
    }
    if (drifted(Number(cell[1]) * 1024, sizes[figure])) {
      found.push(
        `${figure}: the README shows ${cell[1]} kB, measured ${kb(sizes[figure])} (run node scripts/size.mjs --readme)`,
      );
    }
    if (limit !== undefined && cell[2] !== (limit / 1024).toFixed(2)) {
      found.push(`${figure}: the README shows a budget of ${cell[2]} kB, size-budgets.json ${kb(limit)}`);
    }
  }
  const install = MB_CELL.exec(cells.install);
  if (!install) found.push('install: no "x.xx MB" cell in the README package table');
  else if (drifted(Number(install[1]) * 1024 * 1024, sizes.install)) {
    found.push(
      `install: the README shows ${install[1]} MB, measured ${mb(sizes.install)} (run node scripts/size.mjs --readme)`,
    );
  }
  return found;
}

/**
 * Every problem, as "name: what", given the measured sizes of each package (by name), the budgets
 * (by name) and the README text: a figure with no budget, over it or shown wrongly in the README,
 * and a budget for a package that does not exist.
 */
export function findProblems(measured, budgets, readme) {
  const cells = readReadmeSizes(readme);
  const found = [];
  for (const [name, sizes] of measured) {
    for (const problem of problems({ sizes, budget: budgets[name], cells: cells.get(name) })) {
      found.push(`${name}: ${problem}`);
    }
  }
  for (const name of Object.keys(budgets)) {
    if (measured.has(name)) continue;
    found.push(`${name}: a budget in size-budgets.json for a package that does not exist`);
  }
  return found;
}

const budgetOf = (bytes) => Math.ceil((bytes * 1.1) / 64) * 64;

async function main(args) {
  const packages = listPackages();
  const budgets = JSON.parse(readFileSync(budgetsFile, 'utf8'));
  const measured = new Map();
  for (const pkg of packages) measured.set(pkg.name, await measure(pkg));

  const writeIndex = args.indexOf('--write');
  if (writeIndex !== -1) {
    const named = args.slice(writeIndex + 1).filter((a) => !a.startsWith('--'));
    const chosen = named.map((n) => (n.startsWith('@') ? n : `@parley/${n}`));
    const unknown = chosen.filter((n) => !measured.has(n));
    if (unknown.length > 0) throw new Error(`No such package: ${unknown.join(', ')}`);
    for (const [name, sizes] of measured) {
      if (chosen.length > 0 && !chosen.includes(name)) continue;
      budgets[name] = { alone: budgetOf(sizes.alone), bundled: budgetOf(sizes.bundled) };
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
      [...measured]
        .filter(([name]) => budgets[name] !== undefined)
        .map(([name, s]) => [
          name,
          {
            alone: sizeCell(s.alone, budgets[name].alone),
            bundled: sizeCell(s.bundled, budgets[name].bundled),
            install: mb(s.install),
          },
        ]),
    );
    readme = writeReadmeSizes(readme, cells);
    writeFileSync(readmeFile, readme);
    console.log('README.md: package sizes written');
  }

  const readmeCells = readReadmeSizes(readme);
  const column = (text) => text.padStart(22);
  console.log(
    `${'package'.padEnd(20)}${column('alone (budget)')}${column('bundled (budget)')}${column('install')}`,
  );
  for (const pkg of packages) {
    const sizes = measured.get(pkg.name);
    const budget = budgets[pkg.name];
    const ok = problems({ sizes, budget, cells: readmeCells.get(pkg.name) }).length === 0;
    const figure = (name) =>
      `${kb(sizes[name])} (${budget?.[name] === undefined ? 'none' : kb(budget[name])})`;
    console.log(
      `${pkg.name.padEnd(20)}${column(figure('alone'))}${column(figure('bundled'))}${column(mb(sizes.install))}  ${ok ? '✓' : '✗'}`,
    );
  }
  const failures = findProblems(measured, budgets, readme);
  if (failures.length === 0) {
    console.log('\nEvery package is within its budgets, and the README shows its sizes.');
    return;
  }
  console.error(`\n${failures.join('\n')}`);
  if (args.includes('--check')) process.exit(1);
}

if (process.argv[1] === new URL(import.meta.url).pathname) await main(process.argv.slice(2));
