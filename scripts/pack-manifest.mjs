// `npm pack` ships package.json as it is on disk. The repository's `prepare` script (so that
// `npm ci` in a clone builds dist/) would make `npm install -g` of the tarball warn about an
// install script that is not needed there: dist/ is already in the tarball. prepack strips it,
// postpack puts the file back byte for byte.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const SAVED = 'package.json.prepack';
const [action] = process.argv.slice(2);
if (action === 'strip') {
  if (existsSync(SAVED))
    throw new Error(`${SAVED} exists: a previous pack did not finish; restore it with \`node scripts/pack-manifest.mjs restore\``);
  const text = readFileSync('package.json', 'utf8');
  writeFileSync(SAVED, text);
  const pkg = JSON.parse(text);
  delete pkg.scripts.prepare;
  writeFileSync('package.json', `${JSON.stringify(pkg, null, 2)}\n`);
} else if (action === 'restore') {
  if (existsSync(SAVED)) renameSync(SAVED, 'package.json');
} else {
  throw new Error('usage: node scripts/pack-manifest.mjs strip|restore');
}
