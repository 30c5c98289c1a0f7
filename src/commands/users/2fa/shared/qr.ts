// The QR code of an otpauth:// URI for a terminal. Two modules share a character cell (the
// half blocks ▀ ▄ █), so a code for a PostHog URI (version 5, 37 modules) takes 20 lines and
// fits an 80×24 terminal with the secret and the URI below it. Dark modules are drawn in black
// on white set explicitly (256-colour 16 and 231, which themes do not remap), so the code scans
// the same on a light or a dark theme: an authenticator app reads dark modules on a light
// ground, and many apps do not read an inverted code.

/** Light modules around the code: the standard asks for 4; 2 across, and 2 above and 1 below (so
 * that the rows pair up into whole lines), are what the 24 lines leave room for, and scan. */
const QUIET = { side: 2, top: 2, bottom: 1 };
const COLOURS = '\u001b[38;5;16;48;5;231m';
const RESET = '\u001b[0m';

export async function qrLines(text: string): Promise<string[]> {
  const { encode } = await import('uqr');
  // Low error correction keeps the code at the smallest version the URI fits in.
  const { data, size } = encode(text, { border: 0, ecc: 'L' });
  const width = size + 2 * QUIET.side;
  const light = () => new Array<boolean>(width).fill(false);
  const rows: boolean[][] = [
    ...Array.from({ length: QUIET.top }, light),
    ...data.map((row) => [...new Array<boolean>(QUIET.side).fill(false), ...row, ...new Array<boolean>(QUIET.side).fill(false)]),
    ...Array.from({ length: QUIET.bottom }, light),
  ];
  if (rows.length % 2 === 1) rows.push(light());
  const lines: string[] = [];
  for (let y = 0; y < rows.length; y += 2) {
    let line = '';
    for (let x = 0; x < width; x++) {
      const top = rows[y][x];
      const bottom = rows[y + 1][x];
      line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
    }
    lines.push(`${COLOURS}${line}${RESET}`);
  }
  return lines;
}
