// Checks the relative links people follow: every relative link in the root README, CONTRIBUTING,
// the guides, and the package and example READMEs must name a file that exists; and a package's
// README, read from its npm tarball, may link only to files inside that tarball (anything else
// needs an absolute URL). Each package must also say where it lives: `homepage`, `bugs` and
// `repository.directory`. Exits 1 with one line per broken link; CI runs it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listPackages, packageFolders, root } from './packages.mjs';

/** Every link target of a markdown text: `[text](target)`, `![alt](target)`, `<a href="target">`. */
export function linksOf(markdown) {
  const text = markdown
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, (code) => (code.includes('](') ? '' : code));
  const links = [];
  for (const m of text.matchAll(/\]\(\s*(?:<([^>]+)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g))
    links.push(m[1] ?? m[2]);
  for (const m of text.matchAll(/<a\s[^>]*href="([^"]+)"/g)) links.push(m[1]);
  return links;
}

/** Whether a link leaves the repository (a URL, a mail address) or stays on the page (`#anchor`). */
function external(link) {
  return /^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('#') || link.startsWith('//');
}

/** The file a relative link names, from the markdown file that holds it. */
function target(file, link) {
  return resolve(dirname(file), decodeURIComponent(link.split('#')[0] ?? ''));
}

/** Broken relative links of the markdown files people read in the repository. */
export function brokenRepoLinks() {
  const files = [join(root, 'README.md'), join(root, 'CONTRIBUTING.md')];
  for (const { dir } of packageFolders()) files.push(join(dir, 'README.md'));
  for (const dir of ['guides', 'examples']) {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(root, dir, name);
      if (name.endsWith('.md')) files.push(path);
      else if (existsSync(join(path, 'README.md'))) files.push(join(path, 'README.md'));
    }
  }
  const broken = [];
  for (const file of files.filter(existsSync)) {
    for (const link of linksOf(readFileSync(file, 'utf8'))) {
      if (!external(link) && !existsSync(target(file, link))) broken.push(`${relative(root, file)}: ${link}`);
    }
  }
  return broken;
}

/** The files `npm pack` puts in a package's tarball, relative to the package. */
export function packedFiles(dir) {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out)[0].files.map((f) => f.path);
}

/** README links of each package that point outside its tarball, and missing manifest fields. */
export function brokenPackageLinks(packages = listPackages()) {
  const broken = [];
  for (const pkg of packages) {
    const readme = join(pkg.dir, 'README.md');
    const packed = new Set(packedFiles(pkg.dir));
    const where = relative(root, readme);
    for (const link of linksOf(readFileSync(readme, 'utf8'))) {
      if (external(link)) continue;
      const file = relative(pkg.dir, target(readme, link));
      if (!packed.has(file)) broken.push(`${where} (packed): ${link} is not in the ${pkg.name} tarball`);
    }
    const m = pkg.manifest;
    if (typeof m.homepage !== 'string') broken.push(`${pkg.name}: package.json has no homepage`);
    if (typeof m.bugs?.url !== 'string') broken.push(`${pkg.name}: package.json has no bugs.url`);
    if (m.repository?.directory !== relative(root, pkg.dir)) {
      broken.push(`${pkg.name}: package.json repository.directory is not ${relative(root, pkg.dir)}`);
    }
  }
  return broken;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const broken = [...brokenRepoLinks(), ...brokenPackageLinks()];
  for (const line of broken) console.error(line);
  console.log(broken.length === 0 ? 'links: every relative link resolves' : `links: ${broken.length} broken`);
  process.exit(broken.length === 0 ? 0 : 1);
}
