// The rules a @parley/* package must follow to be published, as pure functions of its manifest,
// its tarball listing and the release plan; scripts/check-packages.mjs applies them.
import { satisfies } from 'semver';

/** What a tarball may hold: the build, the manifest, the readme and the licence. */
const ALLOWED_FILE = /^(dist\/.+|package\.json|README\.md|LICENSE)$/;
/** What it must hold: both builds with their declarations, the readme and the licence. */
const REQUIRED_FILES = [
  'dist/index.js',
  'dist/index.cjs',
  'dist/index.d.ts',
  'dist/index.d.cts',
  'README.md',
  'LICENSE',
];

/**
 * What is wrong with a package's manifest for publishing. `pkg` is { name, short, manifest };
 * `versions` maps every workspace package name to its version.
 */
export function manifestProblems(pkg, versions) {
  const m = pkg.manifest;
  const found = [];
  const expect = (ok, problem) => {
    if (!ok) found.push(problem);
  };
  expect(m.name === `@parley/${pkg.short}`, `name must be @parley/${pkg.short}`);
  expect(/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(m.version ?? ''), 'version must be x.y.z');
  expect(m.private !== true, 'must not be private');
  expect(typeof m.description === 'string' && m.description.length >= 20, 'needs a description');
  expect(m.license === 'MIT', 'license must be MIT');
  expect(typeof m.repository?.url === 'string', 'needs repository.url');
  expect(
    m.repository?.directory === `packages/${pkg.ring}/${pkg.short}`,
    `repository.directory must be packages/${pkg.ring}/${pkg.short}`,
  );
  expect(typeof m.engines?.node === 'string', 'needs engines.node');
  expect(m.type === 'module', 'type must be module');
  expect(m.sideEffects === false, 'sideEffects must be false');
  expect(JSON.stringify(m.files) === '["dist"]', 'files must be ["dist"]');
  expect(
    m.publishConfig?.access === 'public',
    'publishConfig.access must be public (a scoped package is private by default)',
  );
  const root = m.exports?.['.'];
  expect(
    root?.import?.default === './dist/index.js' && root?.require?.default === './dist/index.cjs',
    'exports["."] must map import to ./dist/index.js and require to ./dist/index.cjs',
  );
  expect(m.exports?.['./package.json'] === './package.json', 'exports must include ./package.json');
  for (const [name, range] of Object.entries(m.peerDependencies ?? {})) {
    // A sibling as a peer keeps a range of its own (changesets, with
    // onlyUpdatePeerDependentsWhenOutOfRange, leaves a range the new version satisfies alone and
    // bumps the dependent's major when it does not), so it need only accept the sibling's version.
    if (!versions.has(name)) continue;
    expect(
      satisfies(versions.get(name), range),
      `peerDependencies.${name} must accept ${versions.get(name)} (is ${range})`,
    );
  }
  for (const field of ['dependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(m[field] ?? {})) {
      if (!versions.has(name)) continue;
      // changeset version rewrites ^x.y.z to the sibling's new version, so it always resolves.
      expect(
        range === `^${versions.get(name)}`,
        `${field}.${name} must be ^${versions.get(name)} (is ${range})`,
      );
    }
  }
  return found;
}

/** What is wrong with a tarball listing (paths as npm pack reports them). */
export function tarballProblems(paths) {
  const found = [];
  const extra = paths.filter((path) => !ALLOWED_FILE.test(path));
  if (extra.length > 0) found.push(`unexpected files in the tarball: ${extra.join(', ')}`);
  const missing = REQUIRED_FILES.filter((path) => !paths.includes(path));
  if (missing.length > 0) found.push(`missing from the tarball: ${missing.join(', ')}`);
  return found;
}

/**
 * What is wrong with the release plan (as @changesets/get-release-plan returns it) for the given
 * packages: a package never released (version 0.0.0) must have a pending changeset that gives it
 * a first version, and that version is 0.1.0.
 */
export function releasePlanProblems(packages, plan) {
  const found = [];
  for (const pkg of packages) {
    if (pkg.manifest.version !== '0.0.0') continue;
    const release = plan.releases.find((r) => r.name === pkg.name);
    if (release === undefined || release.type === 'none') {
      found.push(`${pkg.name} has never been released and no changeset releases it (add one: npx changeset)`);
    } else if (release.newVersion !== '0.1.0') {
      // e.g. a sibling peer's range that the sibling's first version leaves: changesets makes that major.
      found.push(`${pkg.name}'s first release would be ${release.newVersion}, not 0.1.0`);
    }
  }
  return found;
}

/** Whether npm refused a publish only because this version is already on the registry. */
export function isAlreadyPublished(npmOutput) {
  return /cannot publish over the previously published versions/i.test(npmOutput);
}

/**
 * What is wrong with the version groups in `.changeset/config.json`: every package moves in one
 * `fixed` group, so a release gives all of them one version and a user pins one number.
 */
export function versionGroupProblems(packages, config) {
  const found = [];
  const groups = config.fixed ?? [];
  const covers = (pattern, name) =>
    pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
  if (groups.length !== 1)
    found.push(`.changeset/config.json must have one fixed group, has ${groups.length}`);
  if ((config.linked ?? []).length > 0) found.push('.changeset/config.json must have no linked groups');
  const group = groups[0] ?? [];
  for (const pkg of packages) {
    if (!group.some((pattern) => covers(pattern, pkg.name))) {
      found.push(`${pkg.name} is not in the fixed version group`);
    }
  }
  return found;
}
