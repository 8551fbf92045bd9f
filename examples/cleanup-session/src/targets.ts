// Platform scope: which platforms this host can act on, and how a target the user typed becomes one
// canonical URL or `platform:id`. Pure functions: the flow's platform-scope schema calls them, so the
// normalised, de-duplicated targets are what the flow records.

/** The platforms this host has an adapter for, with the hosts that belong to each. */
export const PLATFORMS = {
  x: { hosts: ['x.com', 'twitter.com'], requiresAuth: true },
  reddit: { hosts: ['reddit.com', 'old.reddit.com', 'redd.it'], requiresAuth: true },
  youtube: { hosts: ['youtube.com', 'youtu.be'], requiresAuth: true },
  telegram: { hosts: ['t.me', 'telegram.me'], requiresAuth: true },
  // Public abuse and complaint forms on any other site: nothing to log in to.
  web: { hosts: [], requiresAuth: false },
} as const satisfies Record<string, { readonly hosts: readonly string[]; readonly requiresAuth: boolean }>;

export type Platform = keyof typeof PLATFORMS;

export const PLATFORM_NAMES = Object.keys(PLATFORMS) as Platform[]; // the keys of the literal above

/** Spellings users write for a platform. */
const PLATFORM_ALIASES: Readonly<Record<string, Platform>> = { twitter: 'x', yt: 'youtube', tg: 'telegram' };

/** A target that could not be turned into a URL or ID this host can act on: it goes to manual review. */
export interface UnresolvedTarget {
  readonly input: string;
  readonly reason: string;
}

/** What the platform-scope step records: the platforms, the canonical targets, and what was left over. */
export interface ResolvedScope {
  readonly platforms: string[];
  readonly targets: string[];
  readonly unresolved: UnresolvedTarget[];
}

/** The platform a word names (`x`, `Twitter`, `reddit`…), or `undefined`. */
export function platformNamed(word: string): Platform | undefined {
  const name = word.toLowerCase();
  if (name in PLATFORMS) return name as Platform; // checked against the keys just above
  return PLATFORM_ALIASES[name];
}

/** Query parameters that only track where a link was shared from. */
const TRACKING_PARAMS = /^(utm_\w+|ref|ref_src|ref_url|s|t|si|fbclid|gclid|igshid|share_id)$/i;

/**
 * Turns one target into its canonical form: `https://x.com/user/status/1`, or `reddit:t3_abc` for an
 * ID. Host names lose `www.`/`m.`/`mobile.` and map to the platform's main host (twitter.com → x.com),
 * http becomes https, fragments and tracking parameters go, the remaining parameters are sorted and a
 * trailing slash is dropped, so two spellings of one post compare equal.
 */
export function normalizeTarget(
  input: string,
):
  | { readonly ok: true; readonly platform: Platform; readonly target: string }
  | ({ readonly ok: false } & UnresolvedTarget) {
  const text = input.trim();
  const id = /^([a-z]+):([\w-]+)$/i.exec(text);
  if (id !== null) {
    const platform = platformNamed(id[1] as string);
    if (platform === undefined || platform === 'web') {
      return { ok: false, input, reason: `"${id[1]}" is not a platform this host can act on` };
    }
    return { ok: true, platform, target: `${platform}:${id[2]}` };
  }
  const url = parseUrl(text);
  if (url === undefined) return { ok: false, input, reason: 'not a URL or a platform:id' };
  const host = url.hostname.toLowerCase().replace(/^(www|m|mobile)\./, '');
  const platform = PLATFORM_NAMES.find((name) => (PLATFORMS[name].hosts as readonly string[]).includes(host));
  const params = [...url.searchParams].filter(([key]) => !TRACKING_PARAMS.test(key));
  if (platform === 'youtube' && host === 'youtu.be') params.push(['v', url.pathname.slice(1)]);
  const path =
    platform === 'youtube' && host === 'youtu.be' ? '/watch' : url.pathname.replace(/\/+$/, '') || '';
  const canonicalHost = platform === undefined ? host : (PLATFORMS[platform].hosts[0] as string);
  const query = params
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
  // Paths are case-sensitive in general; user names on X are not, so they are folded there.
  const canonicalPath = platform === 'x' ? path.toLowerCase() : path;
  const target = `https://${canonicalHost}${canonicalPath}${query === '' ? '' : `?${query}`}`;
  return { ok: true, platform: platform ?? 'web', target };
}

/**
 * Resolves the platforms and targets a user listed: every target normalised and de-duplicated; a
 * target that does not parse, or belongs to a platform the user did not put in scope, is left
 * unresolved (for the manual-review queue). When the user names no platform, the targets' platforms
 * are the scope.
 */
export function resolveScope(platforms: readonly string[], targets: readonly string[]): ResolvedScope {
  const declared = new Set<string>();
  const unresolved: UnresolvedTarget[] = [];
  for (const name of platforms) {
    const platform = platformNamed(name);
    if (platform === undefined) unresolved.push({ input: name, reason: 'not a platform this host knows' });
    else declared.add(platform);
  }
  const seen = new Set<string>();
  const inferred = new Set<string>();
  for (const input of targets) {
    const result = normalizeTarget(input);
    if (!result.ok) {
      unresolved.push({ input: result.input, reason: result.reason });
      continue;
    }
    if (declared.size > 0 && !declared.has(result.platform)) {
      unresolved.push({ input, reason: `${result.platform} is not among the platforms in scope` });
      continue;
    }
    seen.add(result.target);
    inferred.add(result.platform);
  }
  return {
    platforms: declared.size > 0 ? [...declared] : [...inferred],
    targets: [...seen],
    unresolved,
  };
}

function parseUrl(text: string): URL | undefined {
  if (/\s/.test(text) || text === '') return undefined;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text)
    ? text
    : /^[\w-]+(\.[\w-]+)+(\/|$)/.test(text)
      ? `https://${text}`
      : '';
  if (withScheme === '') return undefined;
  try {
    const url = new URL(withScheme);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}
