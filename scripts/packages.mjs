// The publishable workspace packages (those with a src/index.ts), in dependency order.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;

export function listPackages() {
  const dir = join(root, 'packages');
  const all = new Map();
  for (const name of readdirSync(dir).sort()) {
    const pkgDir = join(dir, name);
    if (!existsSync(join(pkgDir, 'package.json')) || !existsSync(join(pkgDir, 'src', 'index.ts'))) continue;
    const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    if (manifest.private) continue;
    all.set(manifest.name, {
      name: manifest.name,
      short: name,
      dir: pkgDir,
      manifest,
      // Peers count too: a package's .d.ts build reads the declarations of what it imports.
      deps: Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }),
    });
  }
  const order = [];
  const seen = new Set();
  const visit = (name, trail) => {
    if (seen.has(name) || !all.has(name)) return;
    if (trail.includes(name)) throw new Error(`Dependency cycle: ${[...trail, name].join(' → ')}`);
    for (const dep of all.get(name).deps) visit(dep, [...trail, name]);
    seen.add(name);
    order.push(all.get(name));
  };
  for (const name of all.keys()) visit(name, []);
  return order;
}
