import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/cli.ts'],
  format: ['esm', 'cjs'],
  // the bin (src/cli.ts, Node only) has no types to publish; the package's API is index.ts
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  treeshake: true,
  target: 'es2022',
  tsconfig: 'tsconfig.build.json',
});
