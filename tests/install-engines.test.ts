// `npm ci` must not open with an EBADENGINE warning: every package the lockfile installs (other
// than optional platform builds, which npm skips quietly) accepts the Node running the install.
// .ci/run also fails when `npm ci` prints EBADENGINE; this catches it in `npm test` too.
import { readFileSync } from 'node:fs';
import { satisfies } from 'semver';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  engines?: { node?: string } | string[];
  optional?: boolean;
}

const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

describe('the lockfile', () => {
  it(`installs only packages whose engines accept this Node (${process.version})`, () => {
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => entry.optional !== true)
      .flatMap(([path, entry]) => {
        const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return node === undefined || satisfies(process.version, node) ? [] : [`${path}: node ${node}`];
      });
    expect(refusing).toEqual([]);
  });
});
