/**
 * Placing one JSON Schema document inside another. A document's local `$ref`s (`#`, `#/$defs/X`,
 * `#/definitions/X`, any `#/…` pointer) point at its own root; once it sits under
 * `properties.payload` of an envelope, or in an `anyOf` of artifacts, they would point at the outer
 * document. So its definitions move into the outer root's definitions under `<prefix>__<name>`,
 * the document itself goes there as `<prefix>` when something points at its root, and every
 * local `$ref` is rewritten to the new place.
 */

/** Where embedded definitions go: `$defs` (2020-12), or `definitions` (draft-07). */
export type DefsKeyword = '$defs' | 'definitions';

/** The definitions keyword of a JSON Schema target. */
export function defsKeywordOf(target: string | undefined): DefsKeyword {
  return target === 'draft-07' ? 'definitions' : '$defs';
}

/**
 * Embeds `document` (a root schema) under a new root: fills `defs` with its definitions and
 * returns the schema to put in its place. `prefix` must be unique among the embedded documents of
 * that root and made of `[A-Za-z0-9_]`.
 */
export function embedJsonSchema(
  document: Record<string, unknown>,
  prefix: string,
  defs: Record<string, unknown>,
  keyword: DefsKeyword,
): Record<string, unknown> {
  const { $schema: _schema, $id: _id, $defs, definitions, ...body } = document;
  let refersToRoot = false;
  const rewrite = (ref: string): string => {
    const pointer = decodeURIComponent(ref.slice(1));
    const [, first, name, ...rest] = pointer.split('/');
    if ((first === '$defs' || first === 'definitions') && name !== undefined) {
      const key = `${prefix}__${unescapePointer(name)}`;
      return `#/${keyword}/${[escapePointer(key), ...rest].map(encodeSegment).join('/')}`;
    }
    refersToRoot = true;
    return `#/${keyword}/${prefix}${pointer.split('/').map(encodeSegment).join('/')}`;
  };
  const moved = rewriteRefs(body, rewrite) as Record<string, unknown>; // a schema stays an object
  for (const group of [$defs, definitions]) {
    if (typeof group !== 'object' || group === null) continue;
    for (const [name, schema] of Object.entries(group))
      defs[`${prefix}__${name}`] = rewriteRefs(schema, rewrite);
  }
  if (!refersToRoot) return moved;
  defs[prefix] = moved;
  return { $ref: `#/${keyword}/${prefix}` };
}

/** Keywords whose values are data, not schemas: a `$ref` string in them is not a reference. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(['const', 'enum', 'default', 'examples', 'example']);
/** Keywords whose values map names (any names, `$ref` and `const` too) to schemas. */
const MAP_KEYWORDS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);

/** Copies a schema with every local `$ref` rewritten; `names` when `node` is a name → schema map. */
function rewriteRefs(node: unknown, rewrite: (ref: string) => string, names = false): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, rewrite));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (names) out[key] = rewriteRefs(value, rewrite);
    else if (key === '$ref' && typeof value === 'string' && value.startsWith('#')) out[key] = rewrite(value);
    else if (DATA_KEYWORDS.has(key)) out[key] = value;
    else out[key] = rewriteRefs(value, rewrite, MAP_KEYWORDS.has(key));
  }
  return out;
}

/** A JSON Pointer segment as a URI fragment may hold it. */
function encodeSegment(segment: string): string {
  return encodeURI(segment).replaceAll('#', '%23');
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** One artifact of a set, with the stem the codec matches names by (`Bullish_Brief`). */
export interface ArtifactEntry {
  readonly artifact: string;
  readonly stem: string;
  readonly document: Record<string, unknown>;
}

/**
 * The JSON Schema of an artifact set. What it accepts (`input`): an object whose `field` names an
 * artifact the way the codec matches it (its stem, with or without one extension) and that fits
 * that artifact's schema, as an `anyOf` over the artifacts, so two artifacts of the same shape
 * never make a valid payload match twice. What it returns (`output`): any artifact's output.
 */
export function artifactSetJsonSchema(
  entries: readonly ArtifactEntry[],
  field: string,
  io: 'input' | 'output',
  keyword: DefsKeyword,
): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  const $schema = entries[0]?.document.$schema;
  const anyOf = entries.map(({ artifact, stem, document }, i) => {
    const schema = embedJsonSchema(document, `artifact${i}`, defs, keyword);
    if (io === 'output') return schema;
    const name = { type: 'string', pattern: stemPattern(stem) };
    const names = { type: 'object', required: [field], properties: { [field]: name } };
    return { title: artifact, allOf: [names, schema] };
  });
  return {
    ...($schema === undefined ? {} : { $schema }),
    anyOf,
    ...(Object.keys(defs).length === 0 ? {} : { [keyword]: defs }),
  };
}

/**
 * The names whose stem is `stem`: the stem itself (unless it holds a dot past its first
 * character, when it is a stem only with an extension after it), or the stem and one extension.
 */
function stemPattern(stem: string): string {
  const escaped = stem.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  return stem.lastIndexOf('.') > 0 ? `^${escaped}\\.[^.]*$` : `^${escaped}(\\.[^.]*)?$`;
}
