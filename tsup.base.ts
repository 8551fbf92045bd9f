// The one build configuration of every package: each packages/<ring>/<name>/tsup.config.ts is
// `export default packageConfig([...its entries])`, run by tsup from the package's folder.
import type { Options } from 'tsup';

/**
 * The tsup configuration of a package whose published entries are `entries` (paths from the
 * package's folder, `src/index.ts` first): ESM and CJS with types and source maps, for ES2022,
 * typechecked by the package's tsconfig.build.json. `overrides` replaces single options.
 */
export function packageConfig(entries: string[], overrides: Options = {}): Options {
  return {
    entry: entries,
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    treeshake: true,
    target: 'es2022',
    tsconfig: 'tsconfig.build.json',
    ...overrides,
  };
}
