// Request-data parsing with DRF's rules: an empty body (or one without a Content-Type) is empty
// data, a body whose media type no parser of the view accepts is 415, malformed JSON is 400
// parse_error. Persons views accept JSON only (`parser_classes = [JSONParser]`); other views
// keep DRF's defaults (JSON, form, multipart).

import { parseError, unsupportedMediaType } from './errors.js';

export type ParserSet = 'json' | 'default';

function mediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

export function parseRequestData(rawBody: Buffer, contentType: string | undefined, parsers: ParserSet): unknown {
  if (rawBody.length === 0 || contentType === undefined || contentType.trim() === '') return {};
  const type = mediaType(contentType);
  if (type === 'application/json') return parseJson(rawBody.toString('utf8'));
  if (parsers === 'default' && type === 'application/x-www-form-urlencoded') {
    return Object.fromEntries(new URLSearchParams(rawBody.toString('utf8')));
  }
  if (parsers === 'default' && type === 'multipart/form-data') return {};
  throw unsupportedMediaType(contentType);
}

function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - (before.lastIndexOf('\n') + 1) + 1;
  return `line ${line} column ${column} (char ${position})`;
}

/** JSON.parse with errors worded like Python's json module, which is what DRF reports. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const pos = /position (\d+)/.exec(message);
    const position = pos ? Number(pos[1]) : text.length;
    let reason = 'Expecting value';
    if (/property name/i.test(message)) reason = 'Expecting property name enclosed in double quotes';
    else if (/non-whitespace character after JSON/i.test(message)) reason = 'Extra data';
    else if (/Expected ',' or '[}\]]'/i.test(message)) reason = "Expecting ',' delimiter";
    else if (/Expected ':'/i.test(message)) reason = "Expecting ':' delimiter";
    else if (/Unterminated string/i.test(message)) reason = 'Unterminated string starting at';
    throw parseError(`${reason}: ${lineAndColumn(text, position)}`);
  }
}
