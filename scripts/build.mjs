// Builds every workspace package with tsup in dependency order (a package's .d.ts build reads
// its siblings' built declarations). Usage: node scripts/build.mjs [name…] (adds what they need)
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { listPackages, root } from './packages.mjs';

const all = listPackages();
const wanted = new Set(process.argv.slice(2).map((n) => (n.startsWith('@') ? n : `@parley/${n}`)));
const needed = new Set();
const byName = new Map(all.map((p) => [p.name, p]));
const add = (name) => {
  if (needed.has(name) || !byName.has(name)) return;
  needed.add(name);
  for (const dep of byName.get(name).deps) add(dep);
};
for (const name of wanted.size > 0 ? wanted : byName.keys()) add(name);

for (const pkg of all.filter((p) => needed.has(p.name))) {
  process.stdout.write(`build ${pkg.name}\n`);
  execFileSync(join(root, 'node_modules', '.bin', 'tsup'), ['--silent'], { cwd: pkg.dir, stdio: 'inherit' });
}
