import { packageConfig } from '../../../tsup.base.js';

// the bin (src/cli.ts, Node only) has no types to publish; the package's API is index.ts
export default packageConfig(['src/index.ts', 'src/cli.ts'], { dts: { entry: 'src/index.ts' } });
