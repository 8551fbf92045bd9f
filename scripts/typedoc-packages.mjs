// A small typedoc plugin: each package's module page shows that package's README (its purpose,
// install line, example and tables), and every relative link to a package README, from the root
// README's package table or from a guide, leads to that module page instead of a copy of the file
// under media/. Modules are matched by their `@module @parley/<name>` tag.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Converter, MinimalSourceFile, normalizePath, ReflectionKind } from 'typedoc';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const project = context.project;
    for (const module of project.getReflectionsByKind(ReflectionKind.Module)) {
      const match = /^@parley\/([a-z-]+)$/.exec(module.name);
      if (match === null) continue;
      const readme = normalizePath(join(ROOT, 'packages', match[1], 'README.md'));
      if (!existsSync(readme)) continue;
      project.files.registerReflectionPath(readme, module);
      if (module.isDeclaration() && module.readme === undefined) {
        const file = new MinimalSourceFile(readFileSync(readme, 'utf8'), readme);
        module.readme = context.converter.parseRawComment(file, project.files).content;
      }
    }
  });
}
