// A small typedoc plugin: ```mermaid blocks in READMEs, guides and TSDoc render as diagrams.
// It ships Mermaid's own browser bundle (mermaid/dist/mermaid.min.js, the same mermaid 11 whose
// parser the fsm tests read toMermaid's output with) with the site, so the docs work offline, and
// turns the highlighted code blocks back into <pre class="mermaid"> elements.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { JSX, Renderer } from 'typedoc';

const require = createRequire(import.meta.url);
const ASSET = 'assets/mermaid.min.js';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.renderer.hooks.on('body.end', (context) =>
    JSX.createElement(
      JSX.Fragment,
      null,
      JSX.createElement('script', { src: context.relativeURL(ASSET) }),
      JSX.createElement('script', null, JSX.createElement(JSX.Raw, { html: INIT })),
    ),
  );

  app.renderer.on(Renderer.EVENT_END_PAGE, (page) => {
    if (page.contents === undefined) return;
    page.contents = page.contents.replace(
      /<pre><code class="mermaid">([\s\S]*?)<\/code>(?:<button[\s\S]*?<\/button>)?<\/pre>/g,
      (_, code) => `<pre class="mermaid">${stripTags(code)}</pre>`,
    );
  });

  app.renderer.on(Renderer.EVENT_END, (event) => {
    mkdirSync(join(event.outputDirectory, 'assets'), { recursive: true });
    copyFileSync(require.resolve('mermaid/dist/mermaid.min.js'), join(event.outputDirectory, ASSET));
  });
}

/** Removes highlighting spans and turns line breaks back into text; entities stay escaped. */
function stripTags(html) {
  return html.replace(/<br\s*\/?>/g, '\n').replace(/<[^>]+>/g, '');
}

const INIT = `
(function () {
  if (!window.mermaid) return;
  var dark = document.documentElement.dataset.theme === 'dark' ||
    (document.documentElement.dataset.theme !== 'light' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  window.mermaid.initialize({ startOnLoad: true, theme: dark ? 'dark' : 'default', securityLevel: 'strict' });
})();
`;
