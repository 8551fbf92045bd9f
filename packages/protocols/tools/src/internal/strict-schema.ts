import { canonicalJson } from '@parley/core';

// OpenAI's strict mode: a copy of a schema it accepts, or a refusal naming the keyword and path.

export type Refuse = (path: string, keyword: string, why: string) => never;

/**
 * Keywords OpenAI's strict mode does not take (its SDK throws on `prefixItems` and rewrites
 * `oneOf`): refused wherever they appear, but for a `oneOf` whose branches exclude each other.
 */
const STRICT_UNSUPPORTED: readonly string[] = [
  'prefixItems',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
];
/** Keywords holding a map of names to schemas. */
const SCHEMA_MAPS: ReadonlySet<string> = new Set(['properties', '$defs', 'definitions']);
/** Keywords holding a schema or a list of schemas. */
const SUBSCHEMAS: ReadonlySet<string> = new Set(['items', 'anyOf', 'oneOf', 'additionalProperties']);

/**
 * Copies a schema for strict mode: every object closed and every property required, a `oneOf`
 * whose branches exclude each other (each requires one property to hold a `const`/`enum` the
 * others' do not allow) written as the `anyOf` it equals, anything else strict mode refuses
 * reported with its path and keyword.
 */
export function strictCopy(node: unknown, path: string, refuse: Refuse): unknown {
  if (Array.isArray(node)) return node.map((item, i) => strictCopy(item, `${path}[${i}]`, refuse));
  if (typeof node !== 'object' || node === null) return node;
  const schema = node as Record<string, unknown>;
  const keyword = STRICT_UNSUPPORTED.find((k) => schema[k] !== undefined);
  if (keyword !== undefined) refuse(path, keyword, `strict mode does not take ${keyword}`);
  checkClosed(schema, path, refuse);
  const out: Record<string, unknown> = {};
  const at = (key: string): string => `${path === '' ? '' : `${path}.`}${key}`;
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, strictCopy(child, at(`${key}.${name}`), refuse)]),
      );
    } else if (key === 'oneOf') {
      if (!exclusive(value) || schema['anyOf'] !== undefined) {
        refuse(path, 'oneOf', 'strict mode takes anyOf, and these oneOf branches may overlap');
      }
      out['anyOf'] = strictCopy(value, at('anyOf'), refuse);
    } else out[key] = SUBSCHEMAS.has(key) ? strictCopy(value, at(key), refuse) : value;
  }
  return out;
}

/** Refuses an object schema that is open or leaves a property optional. */
function checkClosed(schema: Record<string, unknown>, path: string, refuse: Refuse): void {
  const properties = schema['properties'];
  const isObject = schema['type'] === 'object' || (typeof properties === 'object' && properties !== null);
  if (!isObject) return;
  const why = 'the object must set additionalProperties: false and require every property';
  if (schema['additionalProperties'] !== false) refuse(path, 'additionalProperties', why);
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  const keys = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
  if (keys.some((key) => !required.includes(key))) refuse(path, 'required', why);
}

/**
 * Whether at most one branch can match any value: some property is required by every branch and
 * fixed by each to `const`/`enum` values no other branch allows (a discriminated union).
 */
function exclusive(branches: unknown): boolean {
  if (!Array.isArray(branches)) return false;
  const tags = branches.map(tagsOf);
  const candidates = tags[0] === undefined ? [] : [...tags[0].keys()];
  return candidates.some((name) => {
    const seen = new Set<string>();
    for (const branch of tags) {
      const values = branch?.get(name);
      if (values === undefined) return false;
      for (const value of values) {
        if (seen.has(value)) return false;
      }
      for (const value of values) seen.add(value);
    }
    return true;
  });
}

/** The required properties a branch fixes to `const`/`enum` values, each value as canonical JSON. */
function tagsOf(branch: unknown): Map<string, readonly string[]> | undefined {
  if (typeof branch !== 'object' || branch === null) return undefined;
  const { properties, required } = branch as Record<string, unknown>;
  if (typeof properties !== 'object' || properties === null || !Array.isArray(required)) return undefined;
  const tags = new Map<string, readonly string[]>();
  for (const [name, property] of Object.entries(properties)) {
    if (!required.includes(name) || typeof property !== 'object' || property === null) continue;
    const { const: fixed, enum: values } = property as Record<string, unknown>;
    if (fixed !== undefined) tags.set(name, [canonicalJson(fixed)]);
    else if (Array.isArray(values))
      tags.set(
        name,
        values.map((v) => canonicalJson(v)),
      );
  }
  return tags;
}
