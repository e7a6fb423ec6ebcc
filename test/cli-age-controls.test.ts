// Negative controls for test/cli-age.test.ts's malformed-file cases (issue 17 point 4): CLI
// bundles with one check of src/cli/age.ts patched out (or one label broken) must fail the cases
// that guard them, against the real `age` as there. In a file of its own: it patches the source
// text of age.ts, which `npm run test:mutation` instruments (its mutants are the same kind of
// control, made by Stryker), so the mutation runs leave this file out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Rng } from './support/rng.js';
import { malformedCases } from './support/age-writer.js';
import { type Main, age, ageScratch, ctkit, inParallel, ok } from './support/age-cli.js';

const repo = fileURLToPath(new URL('../', import.meta.url));
const { root, ageKeygen, ctkitKeygen, checkCase } = ageScratch('age-controls');
const alice = ageKeygen('alice.txt');
const mallory = ctkitKeygen('mallory.txt');
const { CASES, plainS } = malformedCases(alice, mallory, new Rng(0xa9e));
const caseNamed = (name: string) => {
  const c = CASES.find((c) => c.name === name);
  assert.ok(c, `no malformed-file case named '${name}'`);
  return c;
};

/** The CLI bundled with one replacement in src/cli/age.ts (which must occur exactly once). */
async function mutant(from: string, to: string): Promise<Main> {
  const out = mkdtempSync(join(root, 'mutant-'));
  mkdirSync(join(out, 'src', 'cli'), { recursive: true });
  copyFileSync(join(repo, 'package.json'), join(out, 'package.json'));
  await build({
    entryPoints: [join(repo, 'src/cli/main.ts')],
    outfile: join(out, 'src/cli/main.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    external: ['esbuild', 'tsx'],
    plugins: [
      {
        name: 'mutate',
        setup(b) {
          b.onLoad({ filter: /[\\/]src[\\/]cli[\\/]age\.ts$/ }, (a) => {
            const src = readFileSync(a.path, 'utf8');
            assert.equal(src.split(from).length, 2, `the mutation's text occurs once in age.ts: ${from}`);
            return { contents: src.replace(from, to), loader: 'ts' };
          });
        },
      },
    ],
  });
  return join(out, 'src/cli/main.js');
}

test('negative controls: each check patched out of age.ts lets its case through, and the suite says so', async () => {
  const controls: [string, string, string[]][] = [
    ['if (diff !== 0) throw', 'if (diff !== 0 && false) throw', ['a wrong MAC', 'a header changed after its MAC']],
    ['if (len > TAG && len % (AGE_CHUNK + TAG) === TAG)', 'if (false)', ['an empty final chunk after a full one']],
    ['return b64encode(b) === s ? b : undefined;', 'return b;', ['an X25519 share in non-canonical base64', 'an X25519 body in non-canonical base64']],
    ['if (share?.length !== 32)', 'if (!share)', ['an X25519 share of 31 bytes']],
    ['if (s.body.length !== 32)', 'if (false)', ['an X25519 body of 33 bytes']],
    ["if (line.endsWith('\\r')) line = line.slice(0, -1);", 'line = line.trim();', ['armor: a space at the end of a line']],
  ];
  await inParallel(
    controls,
    async ([from, to, names]) => {
      const main = await mutant(from, to);
      for (const n of names) {
        await assert.rejects(checkCase(caseNamed(n), alice, main), assert.AssertionError, `the mutant '${to}' passes the case '${n}'`);
      }
      // and the mutant still decrypts the well-formed file: the control breaks one check, not everything
      await checkCase(caseNamed('the well-formed file (writer check)'), alice, main);
    },
    2,
  );
  // an encoder with a wrong label: age refuses its files, as the interoperability tests would see
  const main = await mutant("ascii('payload')", "ascii('Payload')");
  const enc = ctkit(['age', '-r', alice.recipient], { main, input: plainS });
  ok(enc, 'the mutant encrypts');
  assert.notEqual(age(['-d', '-i', alice.file], enc.stdout).status, 0, 'age decrypted a file with a wrong payload label');
});
