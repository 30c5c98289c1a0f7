// End-to-end on a real pseudo-terminal of a given size: what a person sees of lists, records,
// colours and the 2FA QR code at 60, 80 and 120 columns. The runs off a terminal (piped, the
// sign-in) are steps in this process (test/cli/harness.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jsQRModule from 'jsqr';
import { startWorld, type World } from './harness.js';
import { runCli } from '../cli/harness.js';
import { runInTerminal, stripAnsi, type TerminalSize } from './terminal.js';

// jsqr is CommonJS whose types declare an ES default export: take the function either way.
type Decoder = typeof jsQRModule.default;
const jsQR: Decoder = (jsQRModule as unknown as { default?: Decoder }).default ?? (jsQRModule as unknown as Decoder);

let world: World;
let twelve: string;

beforeAll(async () => {
  world = await startWorld({ persons: 300 });
  const person = world.sandbox.store.addPerson({
    uuid: '01900000-aaaa-7bbb-8ccc-0000000000c0',
    createdAtUs: Date.UTC(2024, 4, 1) * 1000,
    distinctIds: ['device-12', 'user-12@example.com'],
    properties: Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [
        `prop_${String(i).padStart(2, '0')}`,
        i % 3 === 0 ? { nested: [i, 'x'] } : `value number ${i}`,
      ]),
    ),
  });
  twelve = person.uuid;
}, 60_000);
afterAll(() => world.close());

const screen = (columns: number, rows = 40): TerminalSize => ({ columns, rows });
/** Lines as the terminal shows them: `script` turns \n into \r\n. */
const lines = (output: string) => output.replace(/\r/g, '').replace(/\n$/, '').split('\n');

describe('help fits the terminal', () => {
  // Option descriptions wrap beside their terms, or under them when the column beside would be
  // too thin. Example commands are left whole, to be copied.
  for (const columns of [45, 60, 80]) {
    it(`no line of persons bulk-delete --help but an example is wider than ${columns} columns`, async () => {
      const res = await runInTerminal(['persons', 'bulk-delete', '--help'], world.env, [], 30_000, screen(columns, 200));
      expect(res.code).toBe(0);
      const shown = lines(res.output).filter((l) => !l.startsWith('  $ '));
      for (const line of shown) expect(line.length, line).toBeLessThanOrEqual(columns);
      expect(res.output).toContain('--all-projects');
    });
  }
});

describe('persons list fits the terminal', () => {
  for (const columns of [60, 80, 120]) {
    it(`no line is wider than ${columns} columns, and more rows are announced`, async () => {
      const res = await runInTerminal(['persons', 'list', '--limit', '30'], world.env, [], 30_000, screen(columns));
      expect(res.code).toBe(0);
      const shown = lines(res.output);
      for (const line of shown) expect(line.length, line).toBeLessThanOrEqual(columns);
      expect(res.output).not.toMatch(/[┌│└]/);
      const header = shown.findIndex((l) => /^uuid +name/.test(l));
      expect(header).toBeGreaterThanOrEqual(0);
      expect(shown.filter((l) => /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(l))).toHaveLength(30);
      expect(res.output).toContain('showing 30 persons; --all for every one');
    });
  }

  it('--wide prints every column however wide', async () => {
    const res = await runInTerminal(['persons', 'list', '--limit', '3', '--wide'], world.env, [], 30_000, screen(60));
    expect(res.code).toBe(0);
    expect(res.output).toMatch(/^uuid +name +distinct_ids +created_at/m);
  });

  it('--all streams every person, rows as pages arrive', async () => {
    const res = await runInTerminal(['persons', 'list', '--all', '--page-size', '100'], world.env, [], 60_000, screen(80));
    expect(res.code).toBe(0);
    expect(lines(res.output).filter((l) => /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(l))).toHaveLength(301);
    // One header, for the first page only.
    expect(lines(res.output).filter((l) => /^uuid +name/.test(l))).toHaveLength(1);
    expect(res.output).not.toContain('showing');
  });
});

describe('persons get reads as a record', () => {
  for (const columns of [60, 80, 120]) {
    it(`a 12-property person takes at most 25 lines at ${columns} columns`, async () => {
      const res = await runInTerminal(['persons', 'get', twelve], world.env, [], 30_000, screen(columns));
      expect(res.code).toBe(0);
      // Lines wider than the terminal wrap: count the rows they take.
      const rows = lines(res.output).reduce((n, l) => n + Math.max(1, Math.ceil(l.length / columns)), 0);
      expect(rows).toBeLessThanOrEqual(25);
      const text = lines(res.output).join('\n');
      expect(text).toMatch(/^uuid: +01900000-aaaa-7bbb-8ccc-0000000000c0$/m);
      expect(text).toMatch(/^properties:$/m);
      expect(text).toMatch(/^ {2}prop_00: +\{"nested":\[0,"x"\]\}$/m);
      expect(text).toMatch(/^ {2}prop_11: +value number 11$/m);
    });
  }
});

describe('colour', () => {
  const red = '\u001b[31merror:';
  it('the red error: follows --no-color, NO_COLOR and FORCE_COLOR', async () => {
    const args = ['persons', 'get', '99999999'];
    expect((await runInTerminal(args, world.env)).raw).toContain(red);
    expect((await runInTerminal([...args, '--no-color'], world.env)).raw).not.toContain(red);
    expect((await runInTerminal(args, { ...world.env, NO_COLOR: '1' })).raw).not.toContain(red);
    expect((await runInTerminal(args, { ...world.env, FORCE_COLOR: '0' })).raw).not.toContain(red);
    // Piped: no colour, unless FORCE_COLOR asks for it.
    expect((await runCli(args, { env: world.env })).stderr).not.toContain(red);
    expect((await runCli(args, { env: { ...world.env, FORCE_COLOR: '1' } })).stderr).toContain(red);
  });

  it('the table header is bold only when colour is on', async () => {
    const on = await runInTerminal(['persons', 'list', '--limit', '2'], world.env, [], 30_000, screen(80));
    expect(on.raw).toContain('\u001b[1muuid');
    const off = await runInTerminal(['persons', 'list', '--limit', '2'], { ...world.env, NO_COLOR: '1' }, [], 30_000, screen(80));
    expect(off.raw).not.toMatch(/\u001b\[1m/);
  });

  it('a declined confirmation is not printed as an error', async () => {
    const res = await runInTerminal(['persons', 'delete', twelve], world.env, [{ when: '(y/N)', send: 'n\r' }]);
    expect(res.code).toBe(130);
    expect(res.output).toContain('cancelled; nothing was changed');
    expect(res.output).not.toContain('error:');
  });
});

/** Whether a colour of the 256-colour palette is dark: black (0, 16) and the darker greys. */
const dark256 = (n: number) => n === 0 || n === 16 || (n >= 232 && n < 244);

/**
 * What a terminal with this theme shows for the text: each character cell as two pixels (top and
 * bottom half), coloured by the explicit 256-colour codes where the text sets them, else by the
 * theme's own foreground and background.
 */
function paint(raw: string, theme: 'light' | 'dark'): { pixels: boolean[][]; width: number } {
  // true = dark pixel
  const themeFg = theme === 'light';
  const rows: boolean[][] = [];
  for (const line of raw.replace(/\r/g, '').split('\n')) {
    let fg = themeFg;
    let bg = !themeFg;
    const top: boolean[] = [];
    const bottom: boolean[] = [];
    for (const part of line.split(/(\u001b\[[0-9;]*m)/)) {
      const sgr = /^\u001b\[([0-9;]*)m$/.exec(part);
      if (sgr) {
        const codes = sgr[1].split(';').map(Number);
        for (let i = 0; i < codes.length; i++) {
          if (codes[i] === 0 || sgr[1] === '') [fg, bg] = [themeFg, !themeFg];
          else if (codes[i] === 38 && codes[i + 1] === 5) {
            fg = dark256(codes[i + 2]);
            i += 2;
          } else if (codes[i] === 48 && codes[i + 1] === 5) {
            bg = dark256(codes[i + 2]);
            i += 2;
          }
        }
        continue;
      }
      for (const ch of part) {
        top.push(ch === '█' || ch === '▀' ? fg : bg);
        bottom.push(ch === '█' || ch === '▄' ? fg : bg);
      }
    }
    rows.push(top, bottom);
  }
  const width = Math.max(...rows.map((r) => r.length));
  return { pixels: rows.map((r) => [...r, ...new Array<boolean>(width - r.length).fill(!themeFg)]), width };
}

/**
 * jsQR reads RGBA. The code sits in a margin of the theme's background, as on the screen (dark
 * around it on a dark theme); each pixel is scaled up as a camera would see it.
 */
function decode(pixels: boolean[][], width: number, theme: 'light' | 'dark'): string | undefined {
  const scale = 4;
  const margin = 6;
  const w = (width + 2 * margin) * scale;
  const h = (pixels.length + 2 * margin) * scale;
  const rgba = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const py = Math.floor(y / scale) - margin;
      const px = Math.floor(x / scale) - margin;
      const inside = py >= 0 && py < pixels.length && px >= 0 && px < width;
      const v = (inside ? pixels[py][px] : theme === 'dark') ? 0 : 255;
      rgba.set([v, v, v, 255], (y * w + x) * 4);
    }
  }
  // Many authenticator apps do not read an inverted (light on dark) code: nor does this check.
  return jsQR(rgba, w, h, { inversionAttempts: 'dontInvert' })?.data;
}

describe('the 2FA QR code', () => {
  let raw: string;
  let output: string;
  beforeAll(async () => {
    const login = await runCli(['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'], {
      stdin: world.sandbox.login.password,
      env: world.env,
    });
    expect(login.code).toBe(0);
    const res = await runInTerminal(['users', '2fa', 'start'], world.env, [], 30_000, { columns: 80, rows: 24 });
    expect(res.code).toBe(0);
    raw = res.raw;
    output = res.output;
  });

  it('fits an 80×24 terminal: the code and the secret and URI below it in 23 rows (one for the prompt)', () => {
    const shown = lines(output);
    const first = shown.findIndex((l) => /[█▀▄]/.test(l));
    expect(first).toBeGreaterThanOrEqual(0);
    const fromCode = shown.slice(first);
    for (const line of fromCode.filter((l) => /[█▀▄]/.test(l))) expect(line.length).toBeLessThanOrEqual(80);
    const rows = fromCode.reduce((n, l) => n + Math.max(1, Math.ceil(l.length / 80)), 0);
    expect(rows).toBeLessThanOrEqual(23);
    expect(fromCode.join('\n')).toMatch(/^secret: {2}[A-Z2-7]{32}$/m);
  });

  it('is not drawn on a terminal too narrow for it: the secret is there to type', async () => {
    const res = await runInTerminal(['users', '2fa', 'start'], world.env, [], 30_000, { columns: 36, rows: 24 });
    expect(res.code).toBe(0);
    expect(res.output).not.toMatch(/[█▀▄]/);
    expect(res.output).toMatch(/the QR code needs 41 columns and the terminal has 36/);
    expect(res.output).toMatch(/secret: {2}[A-Z2-7]{32}/);
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`decodes to the URI printed below it on a ${theme} theme`, () => {
      const uri = /URI: +(otpauth:\/\/\S+)/.exec(output)?.[1];
      expect(uri).toMatch(/^otpauth:\/\/totp\/PostHog:sandbox@example\.com\?secret=[A-Z2-7]{32}&issuer=PostHog$/);
      const codeLines = raw
        .replace(/\r/g, '')
        .split('\n')
        .filter((l) => /[█▀▄]/.test(l) || /^\u001b\[[0-9;]*m +\u001b\[0m$/.test(l));
      expect(codeLines.length).toBeLessThanOrEqual(21);
      const { pixels, width } = paint(codeLines.join('\n'), theme);
      // On failure, show the code as the terminal drew it.
      expect(decode(pixels, width, theme), codeLines.map(stripAnsi).join('\n')).toBe(uri);
    });
  }
});
