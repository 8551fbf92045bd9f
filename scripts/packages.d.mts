// Types of scripts/packages.mjs for the tests that import it.
export declare const root: string;

/** A package folder on disk: `packages/<ring>/<short>`. */
export interface PackageFolder {
  readonly short: string;
  readonly ring: string;
  readonly dir: string;
}

export declare function packageFolders(): PackageFolder[];
export declare function packagePath(short: string): string;
