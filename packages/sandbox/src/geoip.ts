// The GeoIP transformation every new project gets (PostHog/posthog
// nodejs/src/cdp/templates/_transformations/geoip/geoip.template.ts, `id: 'template-geoip'`),
// and the one lookup the sandbox can answer without a GeoIP database.
//
// What the template does, copied here:
// - Nothing when `properties.$geoip_disable` is truthy (posthog-node sends `true` by default) or
//   `$ip` is empty.
// - `$ip` exactly `127.0.0.1` is looked up as `89.160.20.129` ("spoofing private ip for local
//   development"); no other address is changed, so `::1` is looked up as it is.
// - A failed lookup leaves the event unchanged.
// - Otherwise, for all 15 keys, `$set['$geoip_<key>']` and `$set_once['$initial_geoip_<key>']`
//   become null (over the client's own values of those keys), then, for each key the lookup
//   found, the event property `$geoip_<key>`, `$set` and `$set_once` get its value.
//   `city_confidence` is never filled in.
//
// The lookup: the sandbox has no GeoIP database, so it knows one address, 89.160.20.129, and
// answers it as MaxMind's test database (GeoIP2-City-Test, the one PostHog's own tests use) does:
// Linköping, Östergötland County, Sweden. Every other address is a failed lookup.

type Json = Record<string, unknown>;

/** The template's `geoipProperties`, in its order. */
export const GEOIP_KEYS = [
  'city_name',
  'city_confidence',
  'subdivision_2_name',
  'subdivision_2_code',
  'subdivision_1_name',
  'subdivision_1_code',
  'country_name',
  'country_code',
  'continent_name',
  'continent_code',
  'postal_code',
  'latitude',
  'longitude',
  'accuracy_radius',
  'time_zone',
] as const;

/** The address the template looks up instead of 127.0.0.1. */
export const GEOIP_TEST_ADDRESS = '89.160.20.129';

/** What the template reads from MaxMind's test record of 89.160.20.128/121 (no postal code, one
 * subdivision), as PostHog's tests of its GeoIP code expect it. */
export const GEOIP_TEST_LOCATION: Readonly<Json> = Object.freeze({
  city_name: 'Linköping',
  country_name: 'Sweden',
  country_code: 'SE',
  continent_name: 'Europe',
  continent_code: 'EU',
  latitude: 58.4167,
  longitude: 15.6167,
  accuracy_radius: 76,
  time_zone: 'Europe/Stockholm',
  subdivision_1_code: 'E',
  subdivision_1_name: 'Östergötland County',
});

function lookup(ip: string): Json | undefined {
  return ip === GEOIP_TEST_ADDRESS ? { ...GEOIP_TEST_LOCATION } : undefined;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Hog's `empty()`: null, '' (and the empty collections, which `$ip` never is in practice). */
function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/** The template run over an event's properties: the properties it returns. */
export function applyGeoip(properties: Json): Json {
  if (properties.$geoip_disable || isEmpty(properties.$ip)) return properties;
  const ip = properties.$ip === '127.0.0.1' ? GEOIP_TEST_ADDRESS : String(properties.$ip);
  const location = lookup(ip);
  if (!location) return properties;
  const set: Json = isObject(properties.$set) ? { ...properties.$set } : {};
  const setOnce: Json = isObject(properties.$set_once) ? { ...properties.$set_once } : {};
  for (const key of GEOIP_KEYS) {
    set[`$geoip_${key}`] = null;
    setOnce[`$initial_geoip_${key}`] = null;
  }
  const out: Json = { ...properties };
  for (const [key, value] of Object.entries(location)) {
    out[`$geoip_${key}`] = value;
    set[`$geoip_${key}`] = value;
    setOnce[`$initial_geoip_${key}`] = value;
  }
  out.$set = set;
  out.$set_once = setOnce;
  return out;
}
