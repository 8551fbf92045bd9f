// Builds workspace packages with tsup in dependency order (a package's .d.ts build reads its
// siblings' built declarations), skipping a package whose build is newer than everything it is
// built from: its sources, manifest, build configs and the builds of the siblings it imports.
//
//   node scripts/build.mjs [name…]          builds what is stale among them and what they need
//   node scripts/build.mjs --force [name…]  builds them all again
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { listPackages, root } from './packages.mjs';

/** What a build writes; all must exist for a package to count as built. */
export const OUTPUTS = ['dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/index.d.cts'];
/** What a package's build reads besides src/ (a missing one is simply not counted). */
const CONFIGS = ['package.json', 'tsup.config.ts', 'tsconfig.build.json'];

/**
 * Whether a package must be built again: an output is missing (undefined), or an input (its own
 * files, or a sibling's outputs) changed after the oldest output was written. Times in ms.
 */
export function isStale(outputTimes, inputTimes) {
  if (outputTimes.length === 0 || outputTimes.some((t) => t === undefined)) return true;
  const built = Math.min(...outputTimes);
  return inputTimes.some((t) => t > built);
}

const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : undefined);

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

const outputTimes = (pkg) => OUTPUTS.map((file) => mtime(join(pkg.dir, file)));

function inputTimes(pkg, byName) {
  const own = [...filesUnder(join(pkg.dir, 'src')), ...CONFIGS.map((f) => join(pkg.dir, f))];
  const shared = ['tsconfig.json', 'tsup.base.ts'].map((f) => mtime(join(root, f)));
  const times = [...own.map(mtime), ...shared].filter((t) => t !== undefined);
  for (const dep of pkg.deps) {
    if (byName.has(dep)) times.push(...outputTimes(byName.get(dep)).filter((t) => t !== undefined));
  }
  return times;
}

function main(args) {
  const force = args.includes('--force');
  const all = listPackages();
  const byName = new Map(all.map((p) => [p.name, p]));
  const wanted = args.filter((a) => !a.startsWith('--')).map((n) => (n.startsWith('@') ? n : `@parley/${n}`));
  const needed = new Set();
  const add = (name) => {
    if (needed.has(name) || !byName.has(name)) return;
    needed.add(name);
    for (const dep of byName.get(name).deps) add(dep);
  };
  for (const name of wanted.length > 0 ? wanted : byName.keys()) add(name);

  const fresh = [];
  const chosen = all.filter((p) => needed.has(p.name));
  // What will be built, to say so first: a package is stale, or one it depends on will be rebuilt.
  const rebuilt = new Set();
  for (const pkg of chosen) {
    const own = force || isStale(outputTimes(pkg), inputTimes(pkg, byName));
    if (own || pkg.deps.some((dep) => rebuilt.has(dep))) rebuilt.add(pkg.name);
  }
  const stale = rebuilt.size;
  if (stale > 1) {
    process.stdout.write(
      `Building ${stale} of ${chosen.length} packages first (ESM, CJS and types with tsup; a few seconds each,\n` +
        'a few minutes in all on a small machine). Later runs rebuild only what changed.\n',
    );
  }
  let built = 0;
  // In dependency order, so a sibling rebuilt just now makes its dependents stale.
  for (const pkg of chosen) {
    if (!force && !isStale(outputTimes(pkg), inputTimes(pkg, byName))) {
      fresh.push(pkg.short);
      continue;
    }
    built++;
    process.stdout.write(`build ${stale > 1 ? `${built}/${stale} ` : ''}${pkg.name}\n`);
    execFileSync(join(root, 'node_modules', '.bin', 'tsup'), ['--silent'], {
      cwd: pkg.dir,
      stdio: 'inherit',
    });
  }
  if (fresh.length > 0) process.stdout.write(`up to date: ${fresh.join(', ')}\n`);
}

if (process.argv[1] === new URL(import.meta.url).pathname) main(process.argv.slice(2));
