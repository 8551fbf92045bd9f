// Size budgets: each package's built ESM entry, bundled with its dependencies left external,
// minified and gzipped, must stay within size-budgets.json. `--check` exits 1 on any overrun;
// without it the table is printed (and `--write` records the current sizes + 10 % as budgets).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { listPackages, root } from './packages.mjs';

const budgetsFile = join(root, 'size-budgets.json');
const budgets = JSON.parse(readFileSync(budgetsFile, 'utf8'));

export async function measure(pkg) {
  const external = [
    ...Object.keys(pkg.manifest.dependencies ?? {}),
    ...Object.keys(pkg.manifest.peerDependencies ?? {}),
  ];
  const result = await build({
    entryPoints: [join(pkg.dir, 'dist', 'index.js')],
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

const rows = [];
let over = 0;
for (const pkg of listPackages()) {
  const size = await measure(pkg);
  const budget = budgets[pkg.name];
  const ok = budget !== undefined && size.gzipped <= budget;
  if (!ok) over++;
  rows.push({ pkg, size, budget, ok });
}

const kb = (n) => `${(n / 1024).toFixed(2)} kB`;
console.log('package'.padEnd(20), 'minified'.padStart(10), 'gzipped'.padStart(10), 'budget'.padStart(10));
for (const { pkg, size, budget, ok } of rows) {
  console.log(
    `${pkg.name.padEnd(20)} ${kb(size.minified).padStart(10)} ${kb(size.gzipped).padStart(10)} ${(budget === undefined ? 'none' : kb(budget)).padStart(10)} ${ok ? '✓' : '✗'}`,
  );
}

if (process.argv.includes('--write')) {
  const next = Object.fromEntries(
    rows.map(({ pkg, size }) => [pkg.name, Math.ceil((size.gzipped * 1.1) / 64) * 64]),
  );
  writeFileSync(budgetsFile, `${JSON.stringify(next, null, 2)}\n`);
  console.log('size-budgets.json written');
} else if (process.argv.includes('--check') && over > 0) {
  console.error(`${over} package(s) over their size budget (or without one) in size-budgets.json`);
  process.exit(1);
}
