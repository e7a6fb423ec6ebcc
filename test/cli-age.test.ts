// `ctkit age` and `ctkit age-keygen` (issue 17 point 4) against the real `age` 1.x (/usr/bin/age,
// Debian package `age`): files both ways (binary, armored, sizes around the 64 KiB chunks and the
// CLI's 4 MiB batches, several recipients, stdin/stdout, worker threads), identity files both
// ways, and every malformed file the age specification (age-encryption.org/v1, C2SP) names,
// rejected by ctkit with a typed one-line error and no output file, and by age alike.
//
// The malformed files come from an independent age writer on node:crypto (OpenSSL: X25519, HKDF,
// HMAC, ChaCha20-Poly1305) in test/support/age-writer.ts, which can re-MAC an edited header and
// chunk a payload in any way, so each case has exactly one defect; age itself accepting the
// writer's well-formed files shows the writer right (test/cli-age-format.test.ts runs the same
// cases in-process). The negative controls (CLI bundles with one check of src/cli/age.ts patched
// out) are in test/cli-age-controls.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from './support/rng.js';
import { ageChunks, ageFile, armor, malformedCases, payload } from './support/age-writer.js';
import { age, ageA, ageScratch, ctkit, ctkitA, inParallel, ok } from './support/age-cli.js';
import { ctkitArgv } from './support/cli.js';

const { fresh, ls, ageKeygen, ctkitKeygen, checkCase: checkCaseFor } = ageScratch('age');
const rng = new Rng(0xa9e);

const alice = ageKeygen('alice.txt'); // made by age-keygen
const bob = ctkitKeygen('bob.txt'); // made by ctkit age-keygen
const carol = ageKeygen('carol.txt');
const mallory = ctkitKeygen('mallory.txt');

test('identity files: ctkit age-keygen writes what age reads (mode 0600, the comment lines), and reads age-keygen files', () => {
  const text = readFileSync(bob.file, 'utf8');
  assert.match(text, /^# created: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n# public key: age1[02-9ac-hj-np-z]{58}\nAGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}\n$/);
  assert.equal(statSync(bob.file).mode & 0o777, 0o600);
  // the public key line is the identity's recipient by OpenSSL's X25519, and by age-keygen -y
  assert.equal(text.split('\n')[1].slice('# public key: '.length), bob.recipient);
  assert.equal(spawnSync('age-keygen', ['-y', bob.file], { encoding: 'utf8' }).stdout.trim(), bob.recipient);
  // ctkit age-keygen -y of an age-keygen identity file
  const y = ctkit(['age-keygen', '-y', alice.file]);
  ok(y, 'age-keygen -y');
  assert.equal(String(y.stdout).trim(), alice.recipient);
  // to stdout: one identity, nothing else; never overwrites
  const s = ctkit(['age-keygen']);
  ok(s, 'age-keygen to stdout');
  assert.match(String(s.stdout), /^# created: .*\n# public key: age1\S+\nAGE-SECRET-KEY-1\S+\n$/);
  const again = ctkit(['age-keygen', '-o', bob.file]);
  assert.equal(again.status, 2, again.stderr);
  assert.equal(again.stderr, `ctkit age-keygen: ${bob.file} already exists; ctkit never overwrites a key\n`);
});

// ---- malformed files (test/support/age-writer.ts) ----------------------------------------------

const { CASES, fk, v1, goodStanza, goodFile, plainS, plain2, hdr } = malformedCases(alice, mallory, rng);

test('the malformed-file cases are what they claim: the armor rewrites hit, the payload lengths are right', () => {
  const a = armor(goodFile);
  for (const c of CASES.filter((c) => c.name.startsWith('armor: '))) {
    if (!c.accept) assert.notEqual(String(c.file), a, `${c.name}: the rewrite changed nothing`);
  }
  assert.ok(/[^=]==\n-----END/.test(a), 'the good armor ends with "==" (the non-canonical padding case needs it)');
});

/** Decrypting `c` with -o (by alice's identity unless the case names one): support/age-cli.ts. */
const checkCase = (c: Parameters<typeof checkCaseFor>[0]) => checkCaseFor(c, alice);

test('malformed files: age and ctkit agree on each case; ctkit: exit 1, one line saying why, no output file', async () => {
  await inParallel(CASES, async (c) => {
    const a = await ageA(['-d', '-i', (c.id ?? alice).file], c.file);
    if (c.accept) {
      assert.equal(a.status, 0, `${c.name}: age refused it: ${a.stderr}`);
      assert.ok(a.stdout.equals(c.accept), `${c.name}: age's plaintext`);
    } else if (c.ageLenient) {
      assert.equal(a.status, 0, `${c.name}: age now refuses it too (drop ageLenient)`);
    } else {
      assert.notEqual(a.status, 0, `${c.name}: age accepted it`);
    }
    await checkCase(c);
  });
});

test('to stdout, a payload failing after good chunks: exit 1, the message counts what was written', () => {
  const p = payload(fk, ageChunks(plain2));
  const bad = hdr(v1 + goodStanza, Buffer.concat([p.subarray(0, p.length - 1), Buffer.of(p[p.length - 1] ^ 1)]));
  const r = ctkit(['age', '-d', '-i', alice.file], { input: bad });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^ctkit age: payload chunk 1 failed authentication: .*; 65536 bytes of authenticated plaintext before it were already written to stdout\n$/);
  assert.ok(r.stdout.equals(plain2.subarray(0, 65536)));
});

test('command-line errors: usage (exit 2), bad recipients and identities (exit 1, the secret never printed)', () => {
  const dir = fresh();
  const none = ctkit(['age'], { input: plainS });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /^ctkit age: age needs a recipient .*; usage: /);
  const noId = ctkit(['age', '-d'], { input: goodFile });
  assert.equal(noId.status, 2);
  assert.match(noId.stderr, /needs an identity file/);
  const bad = ctkit(['age', '-r', alice.recipient.slice(0, -1) + (alice.recipient.endsWith('q') ? 'p' : 'q')], { input: plainS });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^ctkit age: -r: invalid recipient "age1.*": its checksum does not match/);
  const ssh = ctkit(['age', '-r', 'ssh-ed25519 AAAA'], { input: plainS });
  assert.equal(ssh.status, 1);
  assert.match(ssh.stderr, /is not an age X25519 recipient/);
  const secret = readFileSync(alice.file, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('AGE-'))!;
  const lower = join(dir, 'lower.txt');
  writeFileSync(lower, secret.toLowerCase() + '\n');
  const lc = ctkit(['age', '-d', '-i', lower], { input: goodFile });
  assert.equal(lc.status, 1);
  assert.match(lc.stderr, /lower\.txt line 1: not an age X25519 identity .*upper case/);
  const typo = join(dir, 'typo.txt');
  writeFileSync(typo, '# x\n' + secret.slice(0, 30) + (secret[30] === 'Q' ? 'P' : 'Q') + secret.slice(31) + '\n');
  const t = ctkit(['age', '-d', '-i', typo], { input: goodFile });
  assert.equal(t.status, 1);
  assert.match(t.stderr, /typo\.txt line 2: invalid identity: its checksum does not match/);
  for (const r of [lc, t]) assert.ok(!r.stderr.toUpperCase().includes(secret.slice(16, 40)), 'the identity in a message');
  const missing = ctkit(['age', '-d', '-i', join(dir, 'nope.txt')], { input: goodFile });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /cannot read identity file .*nope\.txt: no such file/);
  // binary to a terminal is refused like seal's (not testable without a tty here); -o never overwrites
  writeFileSync(join(dir, 'exists'), 'keep');
  const ow = ctkit(['age', '-r', alice.recipient, '-o', join(dir, 'exists')], { input: plainS });
  assert.equal(ow.status, 2);
  assert.equal(readFileSync(join(dir, 'exists'), 'utf8'), 'keep');
  ok(ctkit(['age', '-r', alice.recipient, '-o', join(dir, 'exists'), '--force'], { input: plainS }), '--force');
  assert.ok(age(['-d', '-i', alice.file, join(dir, 'exists')]).stdout.equals(plainS));
});

// ---- interoperability ---------------------------------------------------------------------------
// (after the malformed files, whose cases are quicker: under `npm run test:mutation -- src/cli` a
// mutant of age.ts fails there first, and the first failing test ends the file)

const SIZES = [0, 1, 65535, 65536, 65537, 131072, 131073, (4 << 20) + 65537];
const ARMORED = [0, 1, 65537];

const SIZED = SIZES.flatMap((size) => (ARMORED.includes(size) ? [false, true] : [false]).map((armored) => ({ size, armored, plain: rng.bytes(size) })));

test('ctkit age encrypts, age -d decrypts: sizes around 64 KiB chunks and 4 MiB batches, binary and armored', async () => {
  const dir = fresh();
  await inParallel(SIZED, async ({ size, armored, plain }) => {
    const inFile = join(dir, `p${size}${armored ? '.asc' : ''}`);
    writeFileSync(inFile, plain);
    {
      const out = join(dir, `p${size}${armored ? '.asc' : ''}.age`);
      ok(await ctkitA(['age', '-r', alice.recipient, ...(armored ? ['-a'] : []), '-o', out, inFile]), `ctkit age ${size}`);
      const file = readFileSync(out);
      if (armored) {
        // strict armor: the begin line, 64-column lines, the end line
        const lines = String(file).split('\n');
        assert.equal(lines[0], '-----BEGIN AGE ENCRYPTED FILE-----');
        assert.deepEqual(lines.slice(-2), ['-----END AGE ENCRYPTED FILE-----', '']);
        const body = lines.slice(1, -2);
        assert.ok(body.slice(0, -1).every((l) => l.length === 64) && body[body.length - 1].length <= 64, `armor lines, size ${size}`);
      } else {
        // the header is one stanza and the MAC; the payload has age's chunk count
        assert.match(String(file.subarray(0, 200)), /^age-encryption\.org\/v1\n-> X25519 [A-Za-z0-9+/]{43}\n[A-Za-z0-9+/]{43}\n--- [A-Za-z0-9+/]{43}\n/);
        const headerLen = String(file.subarray(0, 200)).indexOf('\n--- ') + 49;
        assert.equal(file.length - headerLen - 16, size + 16 * Math.max(1, Math.ceil(size / 65536)), `payload length, size ${size}`);
      }
      const r = await ageA(['-d', '-i', alice.file, out]);
      ok(r, `age -d ${size} ${armored}`);
      assert.ok(r.stdout.equals(plain), `age -d: plaintext of ${size} bytes (armor ${armored})`);
    }
  });
});

test('age encrypts, ctkit age -d decrypts: the same sizes, binary and armored, from a file or from stdin', async () => {
  const dir = fresh();
  let k = 0;
  await inParallel(SIZED, async ({ size, armored, plain }) => {
    const enc = await ageA(['-r', bob.recipient, ...(armored ? ['-a'] : [])], plain);
    ok(enc, 'age -r');
    if (k++ % 2 === 0) {
      const piped = await ctkitA(['age', '-d', '-i', bob.file], { input: enc.stdout });
      ok(piped, 'ctkit age -d from stdin');
      assert.ok(piped.stdout.equals(plain), `ctkit age -d stdin → stdout: ${size} bytes (armor ${armored})`);
      return;
    }
    const f = join(dir, `a${size}${armored ? '.asc' : ''}.age`);
    writeFileSync(f, enc.stdout);
    const out = join(dir, `a${size}${armored ? '.asc' : ''}.out`);
    ok(await ctkitA(['age', '-d', '-i', bob.file, '-o', out, f]), `ctkit age -d ${size}`);
    assert.ok(readFileSync(out).equals(plain), `ctkit age -d -o: ${size} bytes (armor ${armored})`);
  });
});

test('on the js backend (X25519 printed as JavaScript): age-keygen, encrypt and decrypt against age', () => {
  const js = { env: { CTKIT_BACKEND: 'js' } };
  const d = fresh();
  const id = join(d, 'js-id.txt');
  const k = ctkit(['age-keygen', '-o', id], js);
  ok(k, 'ctkit age-keygen on js');
  const recipient = /age1[0-9a-z]+/.exec(k.stderr)?.[0];
  // the identity's recipient by age-keygen -y: X25519's public key on js is right
  assert.equal(recipient, spawnSync('age-keygen', ['-y', id], { encoding: 'utf8' }).stdout.trim());
  const plain = rng.bytes(70_000);
  const enc = ctkit(['age', '-r', recipient!], { ...js, input: plain });
  ok(enc, 'ctkit age -r on js');
  const dec = age(['-d', '-i', id], enc.stdout);
  ok(dec, 'age -d of the file ctkit made on js');
  assert.deepEqual(new Uint8Array(dec.stdout), plain);
  const back = ctkit(['age', '-d', '-i', id], { ...js, input: age(['-r', recipient!], plain).stdout });
  ok(back, 'ctkit age -d on js');
  assert.deepEqual(new Uint8Array(back.stdout), plain);
});

test('several recipients both ways; -R files; several identities; worker threads', () => {
  const dir = fresh();
  const plain = rng.bytes(300_000);
  const rfile = join(dir, 'recipients.txt');
  writeFileSync(rfile, `# the team\n${carol.recipient}\n\n${bob.recipient}\n`);
  // ctkit to alice (-r) and carol, bob (-R): each identity opens it, in age and in ctkit
  const c = ctkit(['age', '-r', alice.recipient, '-R', rfile], { input: plain });
  ok(c, 'ctkit age, three recipients');
  assert.equal((String(c.stdout.subarray(0, 1000)).match(/\n-> X25519 /g) ?? []).length, 3);
  for (const k of [alice, bob, carol]) {
    const a = age(['-d', '-i', k.file], c.stdout);
    ok(a, `age -d -i ${k.file}`);
    assert.ok(a.stdout.equals(plain));
    const d = ctkit(['age', '-d', '-i', k.file], { input: c.stdout });
    ok(d, `ctkit age -d -i ${k.file}`);
    assert.ok(d.stdout.equals(plain));
  }
  // age to alice, carol (-R) → ctkit with carol's identity, and with an identity list holding mallory's first
  const a = age(['-r', alice.recipient, '-R', rfile], plain);
  ok(a, 'age, three recipients');
  const d = ctkit(['age', '-d', '-i', mallory.file, '-i', carol.file], { input: a.stdout });
  ok(d, 'ctkit age -d -i mallory -i carol');
  assert.ok(d.stdout.equals(plain));
  // the test's own writer, to two recipients: each tool opens it with either identity
  const w = ageFile(plain, [alice.pk, bob.pk]);
  for (const k of [alice, bob]) {
    const r = ctkit(['age', '-d', '-i', k.file], { input: w });
    ok(r, `ctkit age -d of the writer's file, ${k.file}`);
    assert.ok(r.stdout.equals(plain));
    assert.ok(age(['-d', '-i', k.file], w).stdout.equals(plain), `age -d of the writer's file, ${k.file}`);
  }
  // one identity file with several keys, the matching one last
  const both = join(dir, 'both.txt');
  writeFileSync(both, readFileSync(mallory.file, 'utf8') + readFileSync(bob.file, 'utf8'));
  const d2 = ctkit(['age', '-d', '-i', both], { input: a.stdout });
  ok(d2, 'identity file with two keys');
  assert.ok(d2.stdout.equals(plain));
  // --jobs 2 (worker threads) both ways, on more than one 4 MiB batch
  const big = rng.bytes((5 << 20) + 12345);
  const bigIn = join(dir, 'big');
  writeFileSync(bigIn, big);
  ok(ctkit(['age', '-r', alice.recipient, '--jobs', '2', '-o', join(dir, 'big.age'), bigIn]), 'ctkit age --jobs 2');
  const back = age(['-d', '-i', alice.file, join(dir, 'big.age')]);
  ok(back, 'age -d of a --jobs 2 file');
  assert.ok(back.stdout.equals(big));
  const ageBig = age(['-r', bob.recipient, '-o', join(dir, 'big2.age'), bigIn]);
  ok(ageBig, 'age -r big');
  ok(ctkit(['age', '-d', '-i', bob.file, '--jobs', '2', '-o', join(dir, 'big2.out'), join(dir, 'big2.age')]), 'ctkit age -d --jobs 2');
  assert.ok(readFileSync(join(dir, 'big2.out')).equals(big));
});

test('age -d -o: SIGINT mid-decryption removes the temporary file (no plaintext left)', async () => {
  const dir = fresh();
  const big = rng.bytes(9 << 20);
  const enc = age(['-r', alice.recipient], big).stdout;
  const child = spawn(process.execPath, ctkitArgv(['age', '-d', '-i', alice.file, '-o', join(dir, 'out'), '--jobs', '1']), { cwd: dir, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.stdin!.on('error', () => undefined);
  child.stdin!.write(enc.subarray(0, enc.length - 1000)); // the pipe stays open: ctkit waits for the rest
  const temps = () => ls(dir).filter((f) => f.includes('.ctkit-tmp'));
  const until = Date.now() + 30000;
  while (!(temps().length === 1 && statSync(join(dir, temps()[0])).size > 0)) {
    if (Date.now() > until) throw new Error(`no temporary file with data appeared; stderr ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(statSync(join(dir, temps()[0])).mode & 0o777, 0o600);
  child.kill('SIGINT');
  const { code, signal } = await done;
  assert.equal(signal, 'SIGINT', `exit ${code}, stderr ${stderr}`);
  assert.deepEqual(ls(dir), [], 'files left behind');
});
