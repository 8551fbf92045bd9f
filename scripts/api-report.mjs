// API reports: every public entry of every package (the main entry and each subpath in its
// `exports`) has a checked-in report of what it exports, written by API Extractor from the built
// declarations (`dist/*.d.ts`). A change to a public name or signature changes a report, so it is
// seen in review and named in a changeset. Run after `npm run build`.
//
//   node scripts/api-report.mjs                 writes the reports that changed (packages/<name>/api/)
//   node scripts/api-report.mjs --check         exits 1 when a report is missing or out of date, or
//                                               when a report names an entry the package no longer has
//   node scripts/api-report.mjs [--check] name… only the named packages (short names: bus, confirm)
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import { listPackages } from './packages.mjs';

const args = process.argv.slice(2);
const check = args.includes('--check');
const only = new Set(args.filter((arg) => !arg.startsWith('--')));

/** The public entries of a package: `.` and each subpath, by the ESM types file they resolve to. */
export function publicEntries(manifest) {
  const entries = [];
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const types = target?.import?.types;
    if (typeof types !== 'string') continue;
    const name = subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-');
    entries.push({ subpath, name, types });
  }
  return entries;
}

/** Report file name of an entry: `bus.api.md`, `testing-loopback.api.md`. */
const reportName = (pkg, entry) =>
  entry.name === 'index' ? `${pkg.short}.api.md` : `${pkg.short}-${entry.name}.api.md`;

function report(pkg, entry, temp) {
  const mainEntryPointFilePath = join(pkg.dir, entry.types);
  if (!existsSync(mainEntryPointFilePath)) {
    throw new Error(
      `${pkg.name}${entry.subpath.slice(1)}: ${entry.types} is missing; run npm run build first`,
    );
  }
  if (!check) mkdirSync(join(pkg.dir, 'api'), { recursive: true });
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: pkg.dir,
      mainEntryPointFilePath,
      bundledPackages: [],
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'Bundler',
            strict: true,
            skipLibCheck: true,
            types: ['node'],
            lib: ['ES2022', 'DOM'],
          },
          include: [mainEntryPointFilePath],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: reportName(pkg, entry),
        reportFolder: join(pkg.dir, 'api'),
        reportTempFolder: temp,
        includeForgottenExports: false,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
          // Parley marks no release stages (@public/@beta): every export of a package is public.
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
          // Exports are documented and checked by typedoc (`npm run docs`); members need not be.
          'ae-undocumented': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: join(pkg.dir, 'api-extractor.json'),
    packageJsonFullPath: join(pkg.dir, 'package.json'),
  });
  const result = Extractor.invoke(config, {
    localBuild: !check,
    showVerboseMessages: false,
    messageCallback: (message) => {
      // Warnings go into the report itself (and so into review); keep the console short.
      if (message.logLevel !== ExtractorLogLevel.Error) message.handled = true;
    },
  });
  return { file: reportName(pkg, entry), changed: result.apiReportChanged, ok: result.succeeded };
}

const packages = listPackages().filter((pkg) => only.size === 0 || only.has(pkg.short));
const temp = mkdtempSync(join(tmpdir(), 'parley-api-'));
const problems = [];
let written = 0;
try {
  for (const pkg of packages) {
    const entries = publicEntries(pkg.manifest);
    const expected = new Set(entries.map((entry) => reportName(pkg, entry)));
    for (const entry of entries) {
      const result = report(pkg, entry, temp);
      if (check && result.changed) problems.push(`${pkg.name}: api/${result.file} is missing or out of date`);
      else if (!result.ok) problems.push(`${pkg.name}: API Extractor failed on ${entry.types}`);
      else if (result.changed) written += 1;
    }
    const apiDir = join(pkg.dir, 'api');
    for (const file of existsSync(apiDir) ? readdirSync(apiDir) : []) {
      if (file.endsWith('.api.md') && !expected.has(file)) {
        problems.push(`${pkg.name}: api/${file} reports an entry the package does not export`);
      }
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  if (check) {
    console.error(
      '\nRun `npm run build && node scripts/api-report.mjs`, review the diff of packages/*/api/, and name',
    );
    console.error('each public change in a changeset.');
  }
  process.exit(1);
}
console.log(
  check
    ? `API reports: ${packages.length} packages, all current`
    : `API reports: ${written} written, ${packages.length} packages checked`,
);
