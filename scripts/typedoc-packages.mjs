// A small typedoc plugin for the API site:
// - each package's module page shows that package's README (its purpose, install line, example and
//   tables) once: the README's own `# @parley/<name>` title and the module comment's summary are not
//   repeated under the page's title; the site's index does not repeat "Parley" either;
// - every relative link to a package README, from the root README's package table or from a guide,
//   leads to that module page instead of a copy of the file under media/;
// - a link whose text names one export of that package (`[`MessageBus`](../packages/protocols/bus/README.md)`)
//   leads to that export's own page, not to the module page.
// Modules are matched by their `@module @parley/<name>` tag.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Converter, MinimalSourceFile, normalizePath, PageEvent, ReflectionKind } from 'typedoc';
import { packageFolders } from './packages.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The first line of a README when it is only its title (`# Parley`, `# @parley/bus`). */
const TITLE = /^#[^\S\n]+[^\n]*\n+/;

/** `[`name`](` before a relative link: the label is one code span naming an identifier. */
const SYMBOL_LABEL = /^`([A-Za-z_$][\w$]*)`$/;

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const project = context.project;
    dropTitle(project.readme);
    for (const module of project.getReflectionsByKind(ReflectionKind.Module)) {
      const match = /^@parley\/([a-z-]+)$/.exec(module.name);
      if (match === null) continue;
      const folder = packageFolders().find((p) => p.short === match[1]);
      if (folder === undefined) continue;
      const readme = normalizePath(join(folder.dir, 'README.md'));
      if (!existsSync(readme)) continue;
      project.files.registerReflectionPath(readme, module);
      if (module.isDeclaration() && module.readme === undefined) {
        const text = readFileSync(readme, 'utf8').replace(TITLE, '');
        const file = new MinimalSourceFile(text, readme);
        module.readme = context.converter.parseRawComment(file, project.files).content;
      }
    }
  });

  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => {
    const project = context.project;
    const texts = [project.readme];
    for (const module of project.getReflectionsByKind(ReflectionKind.Module)) {
      if (module.isDeclaration()) texts.push(module.readme);
    }
    for (const document of project.getReflectionsByKind(ReflectionKind.Document)) {
      texts.push(document.content);
    }
    for (const parts of texts) if (parts !== undefined) linkSymbols(project, parts);
  });

  // A module page that shows its README would show the module comment's summary just above it,
  // and the README says the same in its first paragraph. The modules index keeps the summary.
  const hidden = new Map();
  app.renderer.on(PageEvent.BEGIN, (page) => {
    const model = page.model;
    if (model?.kind !== ReflectionKind.Module || !(model.readme?.length > 0)) return;
    if (model.comment === undefined) return;
    hidden.set(model, model.comment.summary);
    model.comment.summary = [];
  });
  app.renderer.on(PageEvent.END, (page) => {
    const summary = hidden.get(page.model);
    if (summary === undefined) return;
    page.model.comment.summary = summary;
    hidden.delete(page.model);
  });
}

/** Removes a leading `# Title` line from parsed markdown, in place. */
function dropTitle(parts) {
  const first = parts?.[0];
  if (first?.kind === 'text') first.text = first.text.replace(TITLE, '');
}

/**
 * Points `[`name`](…/packages/x/README.md)` at the page of export `name` of module `@parley/x`.
 * The markdown is unchanged, so the same link still opens the README on GitHub.
 */
function linkSymbols(project, parts) {
  for (let i = 3; i < parts.length; i += 1) {
    const link = parts[i];
    if (link.kind !== 'relative-link' || typeof link.target !== 'number') continue;
    if (link.targetAnchor !== undefined) continue;
    const opener = parts[i - 3];
    const label = parts[i - 2];
    const between = parts[i - 1];
    if (opener.kind !== 'text' || !opener.text.endsWith('[')) continue;
    if (label.kind !== 'code' || between.kind !== 'text' || between.text !== '](') continue;
    const name = SYMBOL_LABEL.exec(label.text)?.[1];
    const module = project.files.resolve(link.target, project);
    if (name === undefined || typeof module !== 'object' || module.kind !== ReflectionKind.Module) {
      continue;
    }
    const symbol = module.getChildByName(name);
    if (symbol === undefined) continue;
    const path = normalizePath(join(ROOT, '.api-symbols', module.name, `${name}.md`));
    project.files.registerReflectionPath(path, symbol);
    link.target = project.files.registerAbsolute(path).target;
  }
}
