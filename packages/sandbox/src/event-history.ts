// A plausible history for the seeded persons: a few events each, from their creation on, as a
// web app with posthog-js would have sent them. Like the persons, the events are a pure function
// of the seed and the person id, so the same seed gives the same events; they are laid down the
// first time anything reads or writes the project's events (events.ts), so worlds that never
// look at events pay nothing at start-up.
//
// Each event carries the person's UUID as its stored person_id (the person existed when it was
// ingested); the first events of a person with an anonymous distinct id are sent with that id,
// the rest with its identified one.

import { ANCHOR_MS, type SandboxStore } from './store.js';
import type { EventStore } from './events.js';
import { hash32, hex, mulberry32 } from './prng.js';

const PAGES = ['/', '/pricing', '/docs', '/blog', '/signup', '/login', '/dashboard', '/settings', '/features', '/about'];
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];
const OSES = ['Mac OS X', 'Windows', 'Linux', 'iOS', 'Android'];

/** A UUIDv7 of `ms` as four 32-bit words: 48 bits of time, version 7, variant 10, random bits. */
function uuidV7Words(ms: number, rand: () => number): [number, number, number, number] {
  const hi = Math.floor(ms / 65536);
  const lo = ms % 65536;
  const randA = Math.floor(rand() * 0x1000);
  const variant = 0x8000 | Math.floor(rand() * 0x4000);
  return [
    hi >>> 0,
    ((lo << 16) | 0x7000 | randA) >>> 0,
    ((variant << 16) | Math.floor(rand() * 0x10000)) >>> 0,
    Math.floor(rand() * 0x100000000) >>> 0,
  ];
}

function uuidText(words: readonly number[]): string {
  const h = words.map((w) => hex(w, 8)).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Lays down `perPerson` events for every generated person of `persons`. */
export function seedHistory(persons: SandboxStore, events: EventStore, perPerson: number, seed: number): void {
  if (perPerson <= 0) return;
  const anchorUs = ANCHOR_MS * 1000;
  events.reserve(persons.generated * perPerson);
  for (let id = 1; id <= persons.generated; id++) {
    const person = persons.original(id)!;
    const rand = mulberry32(hash32(seed, id ^ 0x6e7e));
    const browser = BROWSERS[Math.floor(rand() * BROWSERS.length)];
    const os = OSES[Math.floor(rand() * OSES.length)];
    const identified = person.distinctIds.find((d) => d.startsWith('user-'));
    const anonymous = person.distinctIds.find((d) => !d.startsWith('user-'));
    const spanUs = Math.max(1, anchorUs - person.createdAtUs);
    let at = person.createdAtUs;
    let session = '';
    for (let k = 0; k < perPerson; k++) {
      // Later events come after earlier ones, spread over the time since the person appeared.
      at += Math.floor((rand() * spanUs) / perPerson);
      if (k === 0 || rand() < 0.3) session = uuidText(uuidV7Words(Math.floor(at / 1000), rand));
      const distinctId = (k === 0 && anonymous) || !identified ? (anonymous ?? identified!) : identified;
      const page = PAGES[Math.floor(rand() * PAGES.length)];
      const event = k === 0 ? '$pageview' : rand() < 0.6 ? '$pageview' : rand() < 0.7 ? '$autocapture' : 'feature_used';
      events.append({
        uuid: uuidV7Words(Math.floor(at / 1000), rand),
        event,
        distinctId,
        personId: person.uuid,
        timestampUs: at,
        createdAtUs: at + 1000,
        // 200 distinct texts in all: shared, and completed with the session id when read.
        properties: {
          shared: `{"$current_url":"https://app.example.com${page}","$pathname":"${page}","$browser":"${browser}","$os":"${os}","$lib":"web"`,
        },
        sessionId: session,
      });
    }
  }
}
