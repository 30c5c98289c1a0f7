import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { FaultInjector, parseFaultSpec } from '../src/faults.js';
import type { Sandbox } from '../src/server.js';
import { call, errorBody, withSandbox } from './helpers.js';

const persons = '/api/projects/1/persons/?limit=2';

async function withFaults<T>(faults: string, run: (sb: Sandbox) => Promise<T>): Promise<T> {
  const sb = await withSandbox({ persons: 10, faults });
  try {
    return await run(sb);
  } finally {
    await sb.close();
  }
}

describe('parseFaultSpec', () => {
  it('parses kinds, shares, slow delays, seed, path and method', () => {
    expect(parseFaultSpec('429=0.2,429-no-retry=5%,slow=0.1@1500,seed=7,path=bulk_delete,method=POST+DELETE', 1)).toEqual({
      entries: [
        { kind: '429', share: 0.2 },
        { kind: '429-no-retry', share: 0.05 },
        { kind: 'slow', share: 0.1, delayMs: 1500 },
      ],
      seed: 7,
      paths: ['bulk_delete'],
      methods: ['POST', 'DELETE'],
    });
    expect(parseFaultSpec(undefined, 1)).toBeNull();
  });

  it('rejects unknown kinds, bad shares and shares above 1', () => {
    expect(() => parseFaultSpec('418=0.1', 1)).toThrow(/unknown entry "418"/);
    expect(() => parseFaultSpec('500=2', 1)).toThrow(/between 0 and 1/);
    expect(() => parseFaultSpec('500=0.6,503=0.6', 1)).toThrow(/more than 1/);
  });

  it('decides deterministically per seed, roughly in the given shares', () => {
    const run = (spec: string) => {
      const injector = new FaultInjector(parseFaultSpec(spec, 1));
      return Array.from({ length: 2000 }, () => injector.decide('GET', '/api/projects/1/persons/')?.kind ?? 'ok');
    };
    const a = run('500=0.25,503=0.25,seed=3');
    expect(run('500=0.25,503=0.25,seed=3')).toEqual(a);
    expect(run('500=0.25,503=0.25,seed=4')).not.toEqual(a);
    const count = (kind: string) => a.filter((k) => k === kind).length;
    expect(count('500')).toBeGreaterThan(400);
    expect(count('500')).toBeLessThan(600);
    expect(count('503')).toBeGreaterThan(400);
    expect(count('503')).toBeLessThan(600);
  });

  it('only touches eligible requests', () => {
    const injector = new FaultInjector(parseFaultSpec('500=1,path=bulk_delete,method=POST', 1));
    expect(injector.decide('POST', '/api/projects/1/persons/bulk_delete/')?.kind).toBe('500');
    expect(injector.decide('GET', '/api/projects/1/persons/bulk_delete/')).toBeNull();
    expect(injector.decide('POST', '/api/projects/1/persons/')).toBeNull();
    expect(new FaultInjector(parseFaultSpec('500=1', 1)).decide('GET', '/_sandbox/state')).toBeNull();
  });
});

describe('faults over HTTP', () => {
  it('answers 429 with Retry-After 1 and 429-no-retry without it', async () => {
    await withFaults('429=1', async (sb) => {
      const reply = await call(sb, persons);
      expect(reply.status).toBe(429);
      expect(reply.headers['retry-after']).toBe('1');
      expect(reply.json()).toEqual(errorBody('throttled_error', 'throttled', 'Request was throttled. Expected available in 1 second.'));
    });
    await withFaults('429-no-retry=1', async (sb) => {
      const reply = await call(sb, persons);
      expect(reply.status).toBe(429);
      expect(reply.headers['retry-after']).toBeUndefined();
      expect(reply.json()).toEqual(errorBody('throttled_error', 'throttled', 'Request was throttled.'));
    });
  });

  it('answers 500 and 503 with the server bodies, 502/504/html with HTML pages', async () => {
    await withFaults('500=1', async (sb) => {
      const reply = await call(sb, persons);
      expect(reply.status).toBe(500);
      expect(reply.json()).toEqual(errorBody('server_error', 'error', 'A server error occurred.'));
    });
    await withFaults('503=1', async (sb) => {
      const reply = await call(sb, persons);
      expect(reply.status).toBe(503);
      expect(reply.headers['retry-after']).toBe('1');
      expect(reply.json().code).toBe('database_unavailable');
    });
    for (const [kind, status] of [
      ['502', 502],
      ['504', 504],
      ['html', 502],
    ] as const) {
      await withFaults(`${kind}=1`, async (sb) => {
        const reply = await call(sb, persons);
        expect(reply.status).toBe(status);
        expect(reply.headers['content-type']).toBe('text/html');
        expect(reply.text).toMatch(/<html/);
        expect(() => reply.json()).toThrow();
      });
    }
  });

  it('drops the connection without an answer and records status 0', async () => {
    await withFaults('drop=1', async (sb) => {
      await expect(request(sb.url + persons, { headers: { authorization: `Bearer ${sb.defaultKey}` } })).rejects.toThrow();
      expect(sb.requests.at(-1)).toMatchObject({ path: '/api/projects/1/persons/', status: 0 });
    });
  });

  it('drop-after carries the request out, then closes the connection without an answer', async () => {
    const sb = await withSandbox({ persons: 10, faults: 'drop-after=1,method=PATCH', applyDelayMs: 0 });
    try {
      const person = sb.store.list({}, 0, 1)[0];
      const patch = request(`${sb.url}/api/projects/1/persons/${person.uuid}/`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${sb.defaultKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ properties: { lost: 'answer' } }),
      });
      await expect(patch).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 50));
      expect(sb.store.getByUuid(person.uuid)?.properties.lost).toBe('answer');
      expect(sb.requests.at(-1)).toMatchObject({ method: 'PATCH', status: 202 });
    } finally {
      await sb.close();
    }
  });

  it("504-after carries the request out, then sends the proxy's 504 page instead of its answer", async () => {
    const sb = await withSandbox({ persons: 10, faults: '504-after=1,method=POST', applyDelayMs: 0 });
    try {
      const person = sb.store.list({}, 0, 1)[0];
      const reply = await call(sb, `/api/projects/1/persons/${person.uuid}/update_property/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: 'lost', value: 'answer' }),
      });
      expect(reply.status).toBe(504);
      expect(reply.headers['content-type']).toMatch(/text\/html/);
      await new Promise((r) => setTimeout(r, 50));
      expect(sb.store.getByUuid(person.uuid)?.properties.lost).toBe('answer');
    } finally {
      await sb.close();
    }
  });

  it('truncates a 200 JSON body in the middle with a matching Content-Length', async () => {
    await withFaults('truncate=1', async (sb) => {
      const reply = await call(sb, persons);
      expect(reply.status).toBe(200);
      expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.text));
      expect(reply.text.startsWith('{"results":[{"type":"person"')).toBe(true);
      expect(() => reply.json()).toThrow();
    });
  });

  it('delays slow requests and then serves them', async () => {
    await withFaults('slow=1@300', async (sb) => {
      const started = performance.now();
      const reply = await call(sb, persons);
      expect(reply.status).toBe(200);
      expect(reply.json().results).toHaveLength(2);
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    });
  });

  it('applies before auth and routing, and is recorded with its status', async () => {
    await withFaults('500=1,path=persons', async (sb) => {
      expect((await call(sb, persons, { key: null })).status).toBe(500);
      expect((await call(sb, '/api/projects/')).status).toBe(200);
      expect(sb.requests.map((r) => [r.path, r.status])).toEqual([
        ['/api/projects/1/persons/', 500],
        ['/api/projects/', 200],
      ]);
    });
  });

  it('gives the same sequence of statuses for the same seed', async () => {
    const statuses = (faults: string) =>
      withFaults(faults, async (sb) => {
        const out: number[] = [];
        for (let i = 0; i < 40; i++) out.push((await call(sb, persons)).status);
        return out;
      });
    const a = await statuses('500=0.3,503=0.3,seed=11');
    expect(await statuses('500=0.3,503=0.3,seed=11')).toEqual(a);
    expect(a).toContain(200);
    expect(a).toContain(500);
    expect(a).toContain(503);
  });

  it('can be switched at run time', async () => {
    const sb = await withSandbox({ persons: 5 });
    try {
      expect((await call(sb, persons)).status).toBe(200);
      sb.setFaults('503=1');
      expect((await call(sb, persons)).status).toBe(503);
      sb.setFaults(undefined);
      expect((await call(sb, persons)).status).toBe(200);
    } finally {
      await sb.close();
    }
  });
});
