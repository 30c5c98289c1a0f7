// How large one answer may be, per kind of request, and the reading that stops past it. An answer
// is read whole and parsed before anything looks at it, so its size is held in memory about three
// times over (bytes, text, parsed objects): a 480 MB answer took 1.5 GiB. Past the cap the body is
// not read any further (the connection is dropped), and the request is not tried again: the same
// question would get the same answer.
import type { Readable } from 'node:stream';
import { AnswerTooLargeError } from '../errors.js';

export type AnswerKind = 'page' | 'query' | 'capture' | 'action' | 'other';

const MiB = 1024 * 1024;

/** The caps, in bytes. Generous for what PostHog sends, far below what would exhaust memory. */
export const ANSWER_CAPS: Readonly<Record<AnswerKind, number>> = {
  // A page of persons: PostHog pages 100 (up to 50,000 with a larger limit), and a person's
  // properties are limited at ingestion to about half a megabyte; real pages are a few megabytes.
  page: 256 * MiB,
  // A HogQL result: at most 50,000 rows (PostHog's maximum) of about 5 KiB each (an event with
  // its properties, a person with theirs) is 250 MB.
  query: 256 * MiB,
  // Capture answers `{"status": 1}` (or a short error).
  capture: 64 * 1024,
  // An action's answer (a deletion, an update): a few fields.
  action: 1 * MiB,
  // Anything else: one record (a person, a user) or a short list (projects, activity pages).
  other: 64 * MiB,
};

/** What the kind is called in the message, and what the user can do about it. */
const WHAT: Record<AnswerKind, { what: string; hint: string }> = {
  page: {
    what: 'a page of a listing',
    hint: 'ask for fewer rows at once (a smaller --page-size or --limit), or narrow the listing; if something other than PostHog answers, check --base-url',
  },
  query: {
    what: 'a query result',
    hint: 'narrow the query (a WHERE, fewer columns, a smaller LIMIT), or ask for fewer rows at once',
  },
  capture: { what: 'a capture answer', hint: 'capture answers a few bytes: check the capture host (HOGCTL_CAPTURE_URL) and --base-url' },
  action: { what: "an action's answer", hint: 'PostHog answers this with a few bytes: check --base-url and any proxy in front of PostHog' },
  other: { what: 'one answer', hint: 'check --base-url and any proxy in front of PostHog; run with --debug to see each request' },
};

function formatBytes(bytes: number): string {
  return bytes >= MiB ? `${+(bytes / MiB).toFixed(1)} MiB` : `${+(bytes / 1024).toFixed(1)} KiB`;
}

/** The error for an answer past its cap; `declared` when its Content-Length said so up front. */
export function tooLarge(method: string, url: URL, kind: AnswerKind, cap: number, declared?: number): AnswerTooLargeError {
  const size = declared !== undefined ? `${formatBytes(declared)} (its Content-Length)` : `more than ${formatBytes(cap)}`;
  return new AnswerTooLargeError(
    `${url.host} answered ${method} ${url.pathname} with ${size}, over the ${formatBytes(cap)} hogctl reads for ${WHAT[kind].what}: it stopped reading, and did not ask again`,
    WHAT[kind].hint,
  );
}

/**
 * The body as text, read a chunk at a time with a byte count: past `cap` the stream is destroyed
 * (nothing more is read or held) and `tooLarge()` is thrown.
 */
export async function readCapped(body: Readable, cap: number, tooLarge: () => Error): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += (chunk as Buffer).length;
    if (bytes > cap) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  // As undici's text(): UTF-8, a byte order mark dropped.
  return new TextDecoder().decode(Buffer.concat(chunks, bytes));
}
