// Builds every workspace package with tsup in dependency order (a package's .d.ts build reads
// its siblings' built declarations). Usage: node scripts/build.mjs [name…]
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const packagesDir = join(root, 'packages');
const all = new Map();
for (const dir of readdirSync(packagesDir)) {
  const file = join(packagesDir, dir, 'package.json');
  if (!existsSync(file) || !existsSync(join(packagesDir, dir, 'src', 'index.ts'))) continue;
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  all.set(pkg.name, { dir: join(packagesDir, dir), deps: Object.keys(pkg.dependencies ?? {}) });
}

const wanted = process.argv.slice(2).map((n) => (n.startsWith('@') ? n : `@parley/${n}`));
const order = [];
const seen = new Set();
function visit(name, trail) {
  if (seen.has(name)) return;
  if (trail.includes(name)) throw new Error(`Dependency cycle: ${[...trail, name].join(' → ')}`);
  const pkg = all.get(name);
  if (!pkg) return;
  for (const dep of pkg.deps) visit(dep, [...trail, name]);
  seen.add(name);
  order.push(name);
}
for (const name of wanted.length > 0 ? wanted : all.keys()) visit(name, []);

for (const name of order) {
  process.stdout.write(`build ${name}\n`);
  execFileSync(join(root, 'node_modules', '.bin', 'tsup'), ['--silent'], { cwd: all.get(name).dir, stdio: 'inherit' });
}
