// The publishable workspace packages (those with a src/index.ts), in dependency order.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;

/**
 * Every package folder, grouped by ring on disk (`packages/<ring>/<name>`), sorted by name: `{ short, ring,
 * dir }`. A folder counts when it has a package.json and a src/index.ts.
 */
export function packageFolders() {
  const base = join(root, 'packages');
  const found = [];
  for (const ring of readdirSync(base, { withFileTypes: true })) {
    if (!ring.isDirectory()) continue;
    for (const short of readdirSync(join(base, ring.name))) {
      const dir = join(base, ring.name, short);
      if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src', 'index.ts'))) {
        found.push({ short, ring: ring.name, dir });
      }
    }
  }
  return found.sort((a, b) => a.short.localeCompare(b.short));
}

/** The folder of `@parley/<short>`, relative to the repository root (`packages/<ring>/<short>`). */
export function packagePath(short) {
  const found = packageFolders().find((p) => p.short === short);
  if (!found) throw new Error(`No package folder for @parley/${short}`);
  return `packages/${found.ring}/${short}`;
}

export function listPackages() {
  const all = new Map();
  for (const { short: name, ring, dir: pkgDir } of packageFolders()) {
    const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    if (manifest.private) continue;
    all.set(manifest.name, {
      name: manifest.name,
      short: name,
      ring,
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
