// `ctkit age` and `ctkit age-keygen` (src/cli/age.ts) in-process, against the independent age
// writer and reader on node:crypto in test/support/age-writer.ts: every malformed file the age
// specification names refused with its reason and no output file; what ctkit encrypts read by
// the independent reader (sizes around the 64 KiB chunks, binary and armored, several
// recipients); identity and recipient files and their errors; the header parser and the
// detection of armor, directly. test/cli-age.test.ts runs the same
// cases through the command beside the real age; this file is the quick one, so that under
// `npm run test:mutation -- src/cli` a mutant of age.ts fails here first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ageDecrypt, ageEncrypt, ageKeygen, ageKeygenConvert, b64decode, parseHeader, parseIdentity, parseRecipient, unwrapFileKey } from '../src/cli/age.js';
import { bech32Encode } from '../src/cli/bech32.js';
import { chacha20Poly1305 } from '../src/aead/chacha20-poly1305.js';
import { x25519 } from '../src/ec/x25519.js';
import { Failure, FileError, UsageError } from '../src/cli/errors.js';
import { ageChunks, loadKey, malformedCases, nodeIdentity, payload, readAgeFile } from './support/age-writer.js';
import { Rng } from './support/rng.js';
import { recorded } from './support/spy.js';
import { rejectsWith, scratch, throwsWith } from './support/scratch.js';
import { asTerminal, cliOutput, cliStdout as stdoutOf, takeFromStdout } from './support/stdout.js';

const { fresh, ls } = scratch('age-format');
const rng = new Rng(0xa9f);
const keys = fresh();
const alice = nodeIdentity(keys, 'alice.txt');
const bob = nodeIdentity(keys, 'bob.txt');
const carol = nodeIdentity(keys, 'carol.txt');
const mallory = nodeIdentity(keys, 'mallory.txt');
const { CASES, fk, v1, goodStanza, goodFile, plain2, hdr } = malformedCases(alice, mallory, rng);

const rejects = rejectsWith;

test('malformed files: each refused with its reason in one line (a Failure), no output file; the well-formed ones decrypt', async () => {
  for (const c of CASES) {
    const d = fresh();
    const f = join(d, 'in.age');
    writeFileSync(f, c.file);
    const run = ageDecrypt({ identityFiles: [(c.id ?? alice).file], input: f, output: join(d, 'out'), jobs: 1 });
    if (c.accept) {
      await run;
      assert.ok(readFileSync(join(d, 'out')).equals(c.accept), `${c.name}: plaintext`);
      continue;
    }
    // one decryption: its reason, in one line
    await assert.rejects(run, (e: Error) => {
      assert.ok(e instanceof Failure, `${c.name}: ${e.name}: ${e.message}`);
      assert.match(e.message, c.why, c.name);
      assert.match(e.message, /^[^\n]+$/, `${c.name}: one line`);
      return true;
    });
    assert.deepEqual(ls(d), ['in.age'], `${c.name}: a file was left behind`);
  }
});

test('to stdout: the chunks before a failing one go out, and the message counts them; a failure before any says so', async () => {
  const p = payload(fk, ageChunks(plain2));
  const d = fresh();
  const bad = join(d, 'bad.age');
  writeFileSync(bad, hdr(v1 + goodStanza, Buffer.concat([p.subarray(0, p.length - 1), Buffer.of(p[p.length - 1] ^ 1)])));
  let err: unknown;
  const out = await stdoutOf(() => ageDecrypt({ identityFiles: [alice.file], input: bad, jobs: 1 }).catch((e) => void (err = e)));
  assert.ok(err instanceof Failure, String(err));
  assert.equal(err.message, 'payload chunk 1 failed authentication: the file is damaged, truncated or extended; 65536 bytes of authenticated plaintext before it were already written to stdout');
  assert.ok(out.equals(plain2.subarray(0, 65536)), `${out.length} bytes, first differing at ${out.findIndex((x, i) => x !== plain2[i])}`);
  // a failure in the first chunk: nothing written, to a file or to stdout
  const first = join(d, 'first.age');
  writeFileSync(first, goodFile.subarray(0, goodFile.length - 1));
  for (const output of [undefined, join(d, 'out')]) {
    const none = await stdoutOf(() => rejects(ageDecrypt({ identityFiles: [alice.file], input: first, output, jobs: 1 }), Failure, 'payload chunk 0 failed authentication: the file is damaged, truncated or extended; nothing was written'));
    assert.equal(none.length, 0);
  }
  // a header failure after nothing was written: the message as the header check says it
  const wrongId = await stdoutOf(() => rejects(ageDecrypt({ identityFiles: [mallory.file], input: first, jobs: 1 }), Failure, /^no identity matched/));
  assert.equal(wrongId.length, 0);
  assert.deepEqual(ls(d), ['bad.age', 'first.age']);
});

test('ctkit encrypts, the independent reader decrypts: sizes around the 64 KiB chunks, binary and armored', async () => {
  const d = fresh();
  for (const size of [0, 1, 65535, 65536, 65537, 131072, 131073]) {
    const plain = rng.bytes(size);
    const input = join(d, `p${size}`);
    writeFileSync(input, plain);
    for (const armored of [false, true]) {
      const output = `${input}${armored ? '.asc' : ''}.age`;
      await ageEncrypt({ recipients: [alice.recipient], recipientFiles: [], armor: armored, input, output, jobs: 1 });
      const file = readFileSync(output);
      if (armored) {
        const lines = String(file).split('\n');
        assert.equal(lines[0], '-----BEGIN AGE ENCRYPTED FILE-----');
        assert.deepEqual(lines.slice(-2), ['-----END AGE ENCRYPTED FILE-----', '']);
      } else {
        assert.match(String(file.subarray(0, 200)), /^age-encryption\.org\/v1\n-> X25519 [A-Za-z0-9+/]{43}\n[A-Za-z0-9+/]{43}\n--- [A-Za-z0-9+/]{43}\n/);
        const headerLen = String(file.subarray(0, 200)).indexOf('\n--- ') + 49;
        assert.equal(file.length - headerLen - 16, size + 16 * Math.max(1, Math.ceil(size / 65536)), `payload length, size ${size}`);
      }
      assert.ok(readAgeFile(file, alice.sk).equals(plain), `size ${size}, armor ${armored}`);
      assert.throws(() => readAgeFile(file, bob.sk), /no stanza for this identity/);
      // and back through ctkit, to stdout
      assert.ok((await stdoutOf(() => ageDecrypt({ identityFiles: [alice.file], input: output, jobs: 1 }))).equals(plain), `ctkit -d, size ${size}, armor ${armored}`);
    }
  }
  // to stdout, binary and armored: the same file as to -o
  const plain = rng.bytes(70000);
  const input = join(d, 'small');
  writeFileSync(input, plain);
  for (const armor of [false, true]) {
    const out = await stdoutOf(() => ageEncrypt({ recipients: [alice.recipient], recipientFiles: [], armor, input, jobs: 1 }));
    assert.ok(readAgeFile(out, alice.sk).equals(plain));
    assert.equal(out.subarray(0, 5).toString(), armor ? '-----' : 'age-e');
  }
});

test('several recipients (-r and -R files with comments), several identities, identity files with several keys', async () => {
  const d = fresh();
  const plain = rng.bytes(100_000);
  const input = join(d, 'plain');
  writeFileSync(input, plain);
  const rfile = join(d, 'recipients.txt');
  writeFileSync(rfile, `# the team\n${carol.recipient}\n\n  ${bob.recipient}  \n`);
  const output = join(d, 'three.age');
  await ageEncrypt({ recipients: [alice.recipient], recipientFiles: [rfile], input, output, jobs: 1 });
  const file = readFileSync(output);
  assert.equal((String(file.subarray(0, 1000)).match(/\n-> X25519 /g) ?? []).length, 3);
  for (const k of [alice, bob, carol]) {
    assert.ok(readAgeFile(file, k.sk).equals(plain), k.file);
    assert.ok((await stdoutOf(() => ageDecrypt({ identityFiles: [k.file], input: output, jobs: 1 }))).equals(plain), k.file);
  }
  // mallory's identity first, then carol's; one file holding mallory's and bob's
  assert.ok((await stdoutOf(() => ageDecrypt({ identityFiles: [mallory.file, carol.file], input: output, jobs: 1 }))).equals(plain));
  const both = join(d, 'both.txt');
  writeFileSync(both, readFileSync(mallory.file, 'utf8') + readFileSync(bob.file, 'utf8'));
  assert.ok((await stdoutOf(() => ageDecrypt({ identityFiles: [both], input: output, jobs: 1 }))).equals(plain));
  await rejects(ageDecrypt({ identityFiles: [mallory.file], input: output, jobs: 1 }), Failure, /^no identity matched/);
});

test('age-keygen: an identity file age reads (0600, the comment lines), to stdout, never overwritten; -y', async () => {
  const d = fresh();
  const f = join(d, 'id.txt');
  const { stderr } = await cliOutput(() => ageKeygen(f));
  const text = readFileSync(f, 'utf8');
  assert.match(text, /^# created: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n# public key: age1[02-9ac-hj-np-z]{58}\nAGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}\n$/);
  assert.equal(statSync(f).mode & 0o777, 0o600);
  const k = loadKey(f);
  assert.equal(text.split('\n')[1], `# public key: ${k.recipient}`);
  assert.equal(stderr, `Public key: ${k.recipient}\n`);
  await rejects(ageKeygen(f), FileError, `${f} already exists; ctkit never overwrites a key`);
  for (const out of [undefined, '-']) {
    const s = (
      await takeFromStdout(
        (c) => typeof c === 'string' && c.startsWith('# created: '),
        () => ageKeygen(out),
      )
    ).join('');
    assert.match(s, /^# created: .*\n# public key: age1\S+\nAGE-SECRET-KEY-1\S+\n$/);
    writeFileSync(join(d, 'out.txt'), s);
    assert.equal(s.split('\n')[1], `# public key: ${loadKey(join(d, 'out.txt')).recipient}`);
    rmSync(join(d, 'out.txt'));
  }
  const y = await takeFromStdout(
    (c) => typeof c === 'string' && c.startsWith('age1'),
    () => ageKeygenConvert(join(keys, 'alice.txt')),
  );
  assert.deepEqual(y, [`${alice.recipient}\n`]);
  const two = join(d, 'two.txt');
  writeFileSync(two, readFileSync(alice.file, 'utf8') + readFileSync(bob.file, 'utf8'));
  const y2 = await takeFromStdout(
    (c) => typeof c === 'string' && c.startsWith('age1'),
    () => ageKeygenConvert(two),
  );
  assert.deepEqual(y2, [`${alice.recipient}\n${bob.recipient}\n`]);
});

test('recipients, identities and files refused, each with its reason; the secret never in a message', async () => {
  const d = fresh();
  const input = join(d, 'plain');
  writeFileSync(input, 'hello');
  const enc = (recipients: string[], recipientFiles: string[] = []) => ageEncrypt({ recipients, recipientFiles, input, output: join(d, 'out.age'), jobs: 1 });
  await rejects(enc([]), UsageError, 'age needs a recipient to encrypt to (-r age1… or -R <file>), or -d to decrypt');
  const typo = alice.recipient.slice(0, -1) + (alice.recipient.endsWith('q') ? 'p' : 'q');
  await rejects(enc([typo]), Failure, `-r: invalid recipient ${JSON.stringify(`${typo.slice(0, 40)}…`)}: its checksum does not match (a typo, or a truncated key)`);
  await rejects(enc(['ssh-ed25519 AAAA']), Failure, '-r: "ssh-ed25519 AAAA" is not an age X25519 recipient (age1…); ctkit age encrypts to X25519 recipients only');
  await rejects(enc([alice.recipient.toUpperCase().replace('AGE1', 'age1')]), Failure, /^-r: invalid recipient "age1.*": /);
  const rf = join(d, 'r.txt');
  writeFileSync(rf, `# none\n\n`);
  await rejects(enc([], [rf]), Failure, `${rf} holds no recipient (expected age1… lines)`);
  writeFileSync(rf, `${alice.recipient}\nhello\n`);
  await rejects(enc([], [rf]), Failure, `${rf} line 2: "hello" is not an age X25519 recipient (age1…); ctkit age encrypts to X25519 recipients only`);
  await rejects(enc([], [join(d, 'nope.txt')]), FileError, /^cannot read recipients file .*nope\.txt: no such file/);
  assert.deepEqual(ls(d), ['plain', 'r.txt'], 'a refused encryption left a file');

  const dec = (identityFiles: string[]) => ageDecrypt({ identityFiles, input: join(keys, 'alice.txt'), output: join(d, 'out'), jobs: 1 });
  await rejects(dec([]), UsageError, 'age -d needs an identity file (-i <file>)');
  const secret = readFileSync(alice.file, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('AGE-'))!;
  const lower = join(d, 'lower.txt');
  writeFileSync(lower, `${secret.toLowerCase()}\n`);
  const idMessages: string[] = [];
  const idFails = async (f: string, message: string | RegExp) => {
    await rejects(dec([f]), Failure, message);
    await dec([f]).catch((e: Error) => idMessages.push(e.message));
  };
  await idFails(lower, `${lower} line 1: not an age X25519 identity (AGE-SECRET-KEY-1…) (identities are written in upper case); ctkit age reads X25519 identities only`);
  const typoId = join(d, 'typo.txt');
  writeFileSync(typoId, `# x\n${secret.slice(0, 30)}${secret[30] === 'Q' ? 'P' : 'Q'}${secret.slice(31)}\n`);
  await idFails(typoId, `${typoId} line 2: invalid identity: its checksum does not match (a typo, or a truncated key)`);
  const other = join(d, 'other.txt');
  writeFileSync(other, `${alice.recipient}\n`);
  await idFails(other, `${other} line 1: not an age X25519 identity (AGE-SECRET-KEY-1…); ctkit age reads X25519 identities only`);
  const empty = join(d, 'empty.txt');
  writeFileSync(empty, '# nothing\n\n');
  await idFails(empty, `${empty} holds no identity (expected AGE-SECRET-KEY-1… lines)`);
  const encrypted = join(d, 'encrypted.txt');
  writeFileSync(encrypted, goodFile);
  await idFails(encrypted, `${encrypted} is an encrypted identity file; ctkit age reads plain X25519 identity files only`);
  writeFileSync(encrypted, `\n  -----BEGIN AGE ENCRYPTED FILE-----\n`);
  await idFails(encrypted, `${encrypted} is an encrypted identity file; ctkit age reads plain X25519 identity files only`);
  for (const m of idMessages) assert.ok(!m.toUpperCase().includes(secret.slice(16, 40)), `the identity in a message: ${m}`);
  await rejects(dec([join(d, 'nope.txt')]), FileError, /^cannot read identity file .*nope\.txt: no such file/);

  // -o never overwrites without --force
  const exists = join(d, 'exists');
  writeFileSync(exists, 'keep');
  await rejects(ageEncrypt({ recipients: [alice.recipient], recipientFiles: [], input, output: exists, jobs: 1 }), FileError, /already exists/);
  assert.equal(readFileSync(exists, 'utf8'), 'keep');
  await ageEncrypt({ recipients: [alice.recipient], recipientFiles: [], input, output: exists, force: true, jobs: 1 });
  assert.equal(readAgeFile(readFileSync(exists), alice.sk).toString(), 'hello');
});

// ---- the header parser and the armor detection, directly --------------------------------------

const A43 = 'A'.repeat(43); // 32 zero bytes, canonical unpadded base64
const ph = (s: string) => parseHeader(Buffer.from(s, 'latin1'));
const headerFails = (s: string, message: string) => throwsWith(() => ph(s), Failure, message, `${JSON.stringify(s)}: ${message}`);

test('parseHeader: the lines named in its messages, each limit of a stanza and of the MAC line', () => {
  const v1 = 'age-encryption.org/v1\n';
  const stanza = `-> X25519 ${A43}\n${A43}\n`;
  const h = ph(`${v1}${stanza}--- ${A43}\n`);
  assert.equal(h.stanzas.length, 1);
  assert.deepEqual(h.stanzas[0].args, ['X25519', A43]);
  assert.equal(Buffer.from(h.macked).toString('latin1'), `${v1}${stanza}---`);
  headerFails(`age-encryption.org/v2\n--- ${A43}\n`, 'unsupported age format version "v2" (ctkit reads v1)');
  headerFails(`hello\n--- ${A43}\n`, 'not an age file: the first line is not "age-encryption.org/v1"');
  headerFails(`${v1}${stanza}`, 'malformed age header: the header has no MAC line');
  headerFails(`${v1}${stanza}--- ${A43}\n\n`, 'malformed age header: data after the MAC line');
  headerFails(`${v1}--- ${A43}\n`, 'malformed age header: no recipient stanza');
  // the MAC line: "--- " at its start, 43 characters to its end
  for (const mac of [`---- ${A43}`, `--- ${A43}A`, `---  ${A43}`, `--- ${A43.slice(1)}`]) {
    headerFails(`${v1}${stanza}${mac}\n`, 'malformed age header: line 4: the MAC line is not "--- " and 43 canonical base64 characters');
  }
  headerFails(`${v1}${stanza}x\n--- ${A43}\n`, 'malformed age header: line 4: expected a stanza ("-> …") or the MAC line ("--- …")');
  headerFails(`${v1}->\n\n--- ${A43}\n`, 'malformed age header: line 2: a stanza line is "->" and arguments of visible ASCII characters, each after one space');
  headerFails(`${v1}-> X25519  x\n\n--- ${A43}\n`, 'malformed age header: line 2: a stanza line is "->" and arguments of visible ASCII characters, each after one space');
  // a body: lines of 64 columns until a shorter one (possibly empty)
  const full = 'A'.repeat(64);
  const ends = 'malformed age header: the stanza of line 2 ends without a short body line (its body must end with a line of fewer than 64 columns)';
  headerFails(`${v1}-> X\n${full}\n--- ${A43}\n`, ends);
  headerFails(`${v1}-> X\n${full}\n-> Y\n\n--- ${A43}\n`, ends);
  headerFails(`${v1}-> X\n${full}`, ends);
  const two = ph(`${v1}-> X\n${full}\n${full}\n\n-> Y\nAA\n--- ${A43}\n`);
  assert.deepEqual(
    two.stanzas.map((s) => s.body.length),
    [96, 1],
  );
  headerFails(`${v1}-> X\n${full}AAAA\n\n--- ${A43}\n`, 'malformed age header: line 3: a stanza body line is at most 64 columns of canonical base64 without padding');
  headerFails(`${v1}-> X\n${full}\nAB\n--- ${A43}\n`, 'malformed age header: line 4: a stanza body line is at most 64 columns of canonical base64 without padding');
  headerFails(`${v1}-> X\nA---\n--- ${A43}\n`, 'malformed age header: line 3: a stanza body line is at most 64 columns of canonical base64 without padding');
});

test('armored input is found after any white space before it (space, tab, CR, LF, up to the end of the first read); white space before a binary file is not an age file', async () => {
  const d = fresh();
  const plain = rng.bytes(1000);
  const f = join(d, 'a.age');
  writeFileSync(join(d, 'p'), plain);
  await ageEncrypt({ recipients: [alice.recipient], recipientFiles: [], armor: true, input: join(d, 'p'), output: f, jobs: 1 });
  const armored = readFileSync(f);
  // (4050 spaces: the armor's first line starts 46 bytes before the end of the first 4096-byte read)
  for (const ws of [' ', '\t', '\r', '\n', ' \t\r\n\n ', ' '.repeat(4050)]) {
    const g = join(d, `ws${ws.length}${ws.charCodeAt(0)}.age`);
    writeFileSync(g, Buffer.concat([Buffer.from(ws, 'latin1'), armored]));
    const out = `${g}.out`;
    await ageDecrypt({ identityFiles: [alice.file], input: g, output: out, jobs: 1 });
    assert.ok(readFileSync(out).equals(plain), JSON.stringify(ws));
  }
  const bin = join(d, 'bin.age');
  await ageEncrypt({ recipients: [alice.recipient], recipientFiles: [], input: join(d, 'p'), output: bin, jobs: 1 });
  writeFileSync(join(d, 'ws-bin.age'), Buffer.concat([Buffer.from(' '), readFileSync(bin)]));
  await rejects(ageDecrypt({ identityFiles: [alice.file], input: join(d, 'ws-bin.age'), jobs: 1 }), Failure, 'not an age file: it does not start with "age-encryption.org/v1"');
  writeFileSync(join(d, 'empty.age'), '');
  await rejects(ageDecrypt({ identityFiles: [alice.file], input: join(d, 'empty.age'), jobs: 1 }), Failure, 'empty input: not an age file');
});

test('b64decode: canonical unpadded base64 only', () => {
  for (const [s, hex] of [
    ['', ''],
    ['AA', '00'],
    ['AAA', '0000'],
    ['AAAA', '000000'],
    ['+/+/', 'fbffbf'],
    ['YWdl', '616765'],
  ]) {
    assert.equal(Buffer.from(b64decode(s) ?? [0xee]).toString('hex'), hex, JSON.stringify(s));
  }
  for (const s of ['A', 'AAAAA', 'AB', 'AAB', 'AA==', 'AAA=', 'AA=A', ' AAAA', 'AA AA', 'AAAA\n', '-_-_', '!AAA', 'AAA!', 'AA\u00e9A']) {
    assert.equal(b64decode(s), undefined, JSON.stringify(s));
  }
});

test('recipients and identities: the prefix before the key, the kind of key its bech32 holds', () => {
  const zero31 = new Uint8Array(31);
  const notRecipient = (s: string) => `-r: ${JSON.stringify(s)} is not an age X25519 recipient (age1…); ctkit age encrypts to X25519 recipients only`;
  throwsWith(() => parseRecipient('agexyz', '-r'), Failure, notRecipient('agexyz'));
  for (const s of [bech32Encode('age', zero31), bech32Encode('age1x', new Uint8Array(32))]) {
    const shown = JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
    throwsWith(() => parseRecipient(s, '-r'), Failure, `-r: invalid recipient ${shown}: not a 32-byte X25519 key`, s);
  }
  const notIdentity = (hint: string) => `f line 1: not an age X25519 identity (AGE-SECRET-KEY-1…)${hint}; ctkit age reads X25519 identities only`;
  throwsWith(() => parseIdentity('AGE-SECRET-KEY-X', 'f line 1'), Failure, notIdentity(''));
  throwsWith(() => parseIdentity('age-secret-key-x', 'f line 1'), Failure, notIdentity(''));
  throwsWith(() => parseIdentity('age-secret-key-1x', 'f line 1'), Failure, notIdentity(' (identities are written in upper case)'));
  for (const s of [bech32Encode('AGE-SECRET-KEY-', zero31), bech32Encode('AGE-SECRET-KEY-1X', new Uint8Array(32))]) {
    throwsWith(() => parseIdentity(s.toUpperCase(), 'f line 1'), Failure, 'f line 1: invalid identity: not a 32-byte X25519 key', s);
  }
});

test('stanza types: scrypt alone means a passphrase, scrypt beside others is malformed, no X25519 stanza is said with the types', () => {
  const v1 = 'age-encryption.org/v1\n';
  const mac = `--- ${A43}\n`;
  const share = Buffer.from(alice.pk).toString('base64').replace(/=+$/, ''); // a point of full order
  const x = `-> X25519 ${share}\n${A43}\n`;
  const id = [new Uint8Array(32).fill(7)];
  const unwrapFails = (h: string, message: string) => throwsWith(() => unwrapFileKey(ph(h), id), Failure, message, message);
  unwrapFails(`${v1}-> scrypt c2FsdA 18\nAA\n${mac}`, 'the file is encrypted with a passphrase (scrypt); ctkit age decrypts files for X25519 identities only');
  unwrapFails(`${v1}${x}-> scrypt c2FsdA 18\nAA\n${mac}`, 'malformed age header: an scrypt stanza must be the only stanza of its header');
  unwrapFails(`${v1}-> ssh-ed25519 abc\nAA\n-> piv-p256 xyz\n\n${mac}`, 'no X25519 recipient in the header (stanza types: "ssh-ed25519", "piv-p256"); ctkit age decrypts X25519 files only');
  unwrapFails(`${v1}${x}${mac}`, 'no identity matched any of the recipients (wrong identity file?)');
});

const zero = (b: unknown) => b instanceof Uint8Array && b.every((x) => x === 0);

test('wiped after use: the file key, ephemeral secrets, shared secrets and wrapping keys; identities; a new identity', async () => {
  const d = fresh();
  writeFileSync(join(d, 'p'), rng.bytes(3000));
  const random: unknown[][] = [];
  const ecdh: unknown[][] = [];
  const seal: unknown[][] = [];
  await recorded(crypto, 'getRandomValues', random, () =>
    recorded(x25519, 'ecdh', ecdh, () => recorded(chacha20Poly1305, 'seal', seal, () => ageEncrypt({ recipients: [alice.recipient, bob.recipient], recipientFiles: [], input: join(d, 'p'), output: join(d, 'c.age'), jobs: 1 }))),
  );
  // in order: the file key (16 bytes), an ephemeral secret per recipient (32), the payload nonce (16, public)
  assert.deepEqual(
    random.map((c) => (c[1] as Uint8Array).length),
    [16, 32, 32, 16],
  );
  assert.ok(
    random.slice(0, 3).every((c) => zero(c[1])),
    'the file key and the ephemeral secrets',
  );
  assert.ok(!zero(random[3][1]), 'the control: the nonce is not wiped');
  assert.equal(ecdh.length, 2);
  assert.ok(
    ecdh.every((c) => zero(c[0]) && zero(c[2])),
    'the ephemeral secrets given to ecdh, and the shared secrets',
  );
  assert.equal(seal.length, 2);
  assert.ok(
    seal.every((c) => zero(c[0]) && zero(c[2])),
    'the wrapping keys, and the file key they sealed',
  );

  const getPublicKey: unknown[][] = [];
  const open: unknown[][] = [];
  await recorded(x25519, 'getPublicKey', getPublicKey, () => recorded(chacha20Poly1305, 'open', open, () => ageDecrypt({ identityFiles: [mallory.file, bob.file], input: join(d, 'c.age'), output: join(d, 'p2'), jobs: 1 })));
  assert.ok(readFileSync(join(d, 'p2')).equals(readFileSync(join(d, 'p'))));
  assert.equal(getPublicKey.length, 2, 'one public key per identity');
  assert.ok(
    getPublicKey.every((c) => zero(c[0])),
    'the identities',
  );
  assert.ok(open.length >= 1 && open.every((c) => zero(c[0])), 'the wrapping keys');
  assert.ok(zero(open[open.length - 1][3]), 'the file key');
  // a decryption that fails: no identity matches
  const failed: unknown[][] = [];
  await recorded(x25519, 'getPublicKey', failed, () => rejects(ageDecrypt({ identityFiles: [mallory.file], input: join(d, 'c.age'), output: join(d, 'p3'), jobs: 1 }), Failure, /^no identity matched/));
  assert.equal(failed.length, 1);
  assert.ok(zero(failed[0][0]), 'the identity, after a failure');

  // age-keygen's new secret, and -y's identities
  const kg: unknown[][] = [];
  await recorded(crypto, 'getRandomValues', kg, () => cliOutput(() => ageKeygen(join(d, 'id.txt'))).then(() => undefined));
  assert.deepEqual(
    kg.map((c) => zero(c[1])),
    [true],
  );
  const y: unknown[][] = [];
  await recorded(x25519, 'getPublicKey', y, () => cliOutput(() => ageKeygenConvert(join(d, 'id.txt'))).then(() => undefined));
  assert.equal(y.length, 1);
  assert.ok(zero(y[0][0]), "-y's identity");
});

test('a terminal: binary output refused, armored allowed; the progress bar says encrypting or decrypting', async () => {
  const d = fresh();
  writeFileSync(join(d, 'p'), 'hello');
  const enc = (armor: boolean, output?: string) => ageEncrypt({ recipients: [alice.recipient], recipientFiles: [], armor, input: join(d, 'p'), output, jobs: 1 });
  await asTerminal({ stdout: true }, async () => {
    await rejects(enc(false), FileError, 'refusing to write sealed (binary) data to a terminal; redirect stdout or use -o <file>');
    const { stdout } = await cliOutput(() => enc(true));
    assert.match(stdout, /^-----BEGIN AGE ENCRYPTED FILE-----\n/);
  });
  // 8 MiB, the smallest input with a progress bar
  writeFileSync(join(d, 'big'), rng.bytes(8 << 20));
  await asTerminal({ stderr: true }, async () => {
    const e = await cliOutput(() => ageEncrypt({ recipients: [alice.recipient], recipientFiles: [], input: join(d, 'big'), output: join(d, 'big.age'), jobs: 1 }));
    assert.match(e.stderr, /^\rencrypting \[#*\s*\]/);
    assert.match(e.stderr, /100% \d+ MB\/s\n$/);
    const o = await cliOutput(() => ageDecrypt({ identityFiles: [alice.file], input: join(d, 'big.age'), output: join(d, 'big.out'), jobs: 1 }));
    assert.match(o.stderr, /^\rdecrypting \[#*\s*\]/);
    assert.match(o.stderr, /100% \d+ MB\/s\n$/);
  });
  assert.ok(readFileSync(join(d, 'big.out')).equals(readFileSync(join(d, 'big'))));
});

/** `plain` encrypted to alice and armored by ctkit age into `name` in `d` (from `name`.in): the armor's text. */
async function armoredTo(d: string, plain: Uint8Array, name: string): Promise<string> {
  writeFileSync(join(d, `${name}.in`), plain);
  await ageEncrypt({ recipients: [alice.recipient], recipientFiles: [], armor: true, input: join(d, `${name}.in`), output: join(d, name), jobs: 1 });
  return readFileSync(join(d, name), 'latin1');
}

test('armored input longer than one read of the armor decoder (1 MiB) and of the file path (64 chunks), LF and CRLF lines, no line feed at the end', async () => {
  const d = fresh();
  // more than the file path's read of 64 sealed chunks (4 MiB + 1 KiB): a read that ends inside
  // what one decoder read decoded takes only the bytes asked for
  const plain = rng.bytes((4 << 20) + 4321);
  const lf = await armoredTo(d, plain, 'a.age');
  assert.ok(lf.length > 4 << 20);
  writeFileSync(join(d, 'crlf.age'), lf.replace(/\n/g, '\r\n'), 'latin1');
  writeFileSync(join(d, 'no-final-lf.age'), lf.slice(0, -1), 'latin1');
  for (const f of ['a.age', 'crlf.age', 'no-final-lf.age']) {
    await ageDecrypt({ identityFiles: [alice.file], input: join(d, f), output: join(d, `${f}.out`), jobs: 1 });
    assert.ok(readFileSync(join(d, `${f}.out`)).equals(plain), f);
  }
  // the independent reader agrees on the armor
  assert.ok(readAgeFile(Buffer.from(lf, 'latin1'), alice.sk).equals(plain));
  // a line broken across the decoder's reads, damaged after the first MiB: refused
  const bad = `${lf.slice(0, (2 << 20) + 10)}!${lf.slice((2 << 20) + 11)}`;
  writeFileSync(join(d, 'bad.age'), bad, 'latin1');
  await rejects(ageDecrypt({ identityFiles: [alice.file], input: join(d, 'bad.age'), output: join(d, 'bad.out'), jobs: 1 }), Failure, 'invalid armor: a line that is not padded base64 (or a short line before the last)');
  assert.deepEqual(
    ls(d).filter((f) => f.startsWith('bad')),
    ['bad.age'],
  );
});

test('headers longer than the first read (4096 bytes): 60 recipients, the last one decrypts; no MAC line in the first MiB is refused', async () => {
  const d = fresh();
  const many = Array.from({ length: 60 }, (_, i) => nodeIdentity(d, `id${i}.txt`));
  writeFileSync(join(d, 'p'), 'to many');
  await ageEncrypt({ recipients: many.map((k) => k.recipient), recipientFiles: [], input: join(d, 'p'), output: join(d, 'm.age'), jobs: 1 });
  const file = readFileSync(join(d, 'm.age'));
  assert.ok(file.indexOf('\n--- ') > 4096, 'a header longer than one read');
  for (const k of [many[0], many[59]]) {
    const out = join(d, `out-${k.recipient.slice(-6)}`);
    await ageDecrypt({ identityFiles: [k.file], input: join(d, 'm.age'), output: out, jobs: 1 });
    assert.equal(readFileSync(out, 'utf8'), 'to many');
  }
  assert.equal(readAgeFile(file, many[59].sk).toString(), 'to many');
  // a header of 450 stanzas (44 KB, 11 reads): the buffer doubles only when it is full, so the
  // MAC line is found, not refused as if the header had reached 1 MiB
  const big = join(d, 'big.age');
  await ageEncrypt({ recipients: Array(450).fill(alice.recipient), recipientFiles: [], input: join(d, 'p'), output: big, jobs: 1 });
  assert.ok(readFileSync(big).indexOf('\n--- ') > 40000, 'a header longer than ten reads');
  await ageDecrypt({ identityFiles: [alice.file], input: big, output: join(d, 'big.out'), jobs: 1 });
  assert.equal(readFileSync(join(d, 'big.out'), 'utf8'), 'to many');
  // stanza body lines without end: refused once the header would pass 1 MiB, not read on
  const endless = join(d, 'endless.age');
  writeFileSync(endless, `age-encryption.org/v1\n-> X\n${`${'A'.repeat(64)}\n`.repeat(20000)}`);
  await rejects(ageDecrypt({ identityFiles: [alice.file], input: endless, output: join(d, 'e.out'), jobs: 1 }), Failure, 'malformed age header: no MAC line in the first 1048576 bytes');
  // cut inside the header: truncated
  writeFileSync(join(d, 'cut.age'), file.subarray(0, 5000));
  await rejects(ageDecrypt({ identityFiles: [alice.file], input: join(d, 'cut.age'), output: join(d, 'c.out'), jobs: 1 }), Failure, 'truncated: the file ends inside the age header');
});

test('the MAC line is the first line that starts with "---", found as the header is read; a recipient of small order is refused', async () => {
  const d = fresh();
  const v1 = 'age-encryption.org/v1\n';
  const truncated = 'truncated: the file ends inside the age header';
  // lines with fewer than three dashes at their start are not the MAC line: without one, the header never ends
  const cases: [string, string][] = [
    [`${v1}-> X\n--x\n`, truncated],
    [`${v1}-> X\nAA\n-x-\n`, truncated],
    [`${v1}-> X\nAA\nx--\n`, truncated],
    [`${v1}-> X\nAA\n--\n`, truncated],
    [`${v1}-> X\nAA\n---\nrest`, 'malformed age header: line 4: the MAC line is not "--- " and 43 canonical base64 characters'],
    [`${v1}-> X\n--x\n--- ${A43}\n`, 'malformed age header: line 3: a stanza body line is at most 64 columns of canonical base64 without padding'],
  ];
  for (const [text, message] of cases) {
    const f = join(d, 'h.age');
    writeFileSync(f, text, 'latin1');
    await rejects(ageDecrypt({ identityFiles: [alice.file], input: f, output: join(d, 'out'), jobs: 1 }), Failure, message);
  }
  // a file shorter than the version line that begins it: cut, not foreign
  writeFileSync(join(d, 'h.age'), 'age-encryption');
  await rejects(ageDecrypt({ identityFiles: [alice.file], input: join(d, 'h.age'), output: join(d, 'out'), jobs: 1 }), Failure, truncated);
  // the all-zero point: the shared secret would be zero
  const small = bech32Encode('age', new Uint8Array(32));
  writeFileSync(join(d, 'p'), 'x');
  await rejects(ageEncrypt({ recipients: [small], recipientFiles: [], input: join(d, 'p'), output: join(d, 'o.age'), jobs: 1 }), Failure, `invalid recipient ${small}: a point of small order (the shared secret would be zero)`);
  assert.deepEqual(ls(d), ['h.age', 'p']);
  // a recipient of 40 characters is shown whole, a longer one cut with an ellipsis
  assert.throws(
    () => parseRecipient('x'.repeat(40), '-r'),
    (e: Error) => e.message.startsWith(`-r: "${'x'.repeat(40)}" is not`),
  );
  assert.throws(
    () => parseRecipient('x'.repeat(41), '-r'),
    (e: Error) => e.message.startsWith(`-r: "${'x'.repeat(40)}…" is not`),
  );
});

test('armor whose bytes end on a whole line (a multiple of 48), and a payload nonce cut short on stdout', async () => {
  const d = fresh();
  // header 168 bytes, nonce 16, one chunk of 40 + 16: 240 bytes, five full armor lines and no short one
  const plain = rng.bytes(40);
  const text = await armoredTo(d, plain, 'a.age');
  assert.deepEqual(
    text.split('\n').map((l) => l.length),
    [34, 64, 64, 64, 64, 64, 32, 0],
  );
  assert.ok(readAgeFile(Buffer.from(text, 'latin1'), alice.sk).equals(plain));
  // the header and 10 bytes of the nonce: said as it is, nothing was written
  const bin = join(d, 'b.age');
  await ageEncrypt({ recipients: [alice.recipient], recipientFiles: [], input: join(d, 'a.age.in'), output: bin, jobs: 1 });
  const file = readFileSync(bin);
  writeFileSync(join(d, 'cut.age'), file.subarray(0, file.indexOf('\n--- ') + 49 + 10));
  const out = await stdoutOf(() => rejects(ageDecrypt({ identityFiles: [alice.file], input: join(d, 'cut.age'), jobs: 1 }), Failure, 'truncated: the file ends inside the payload nonce'));
  assert.equal(out.length, 0);
});

test('armor lines: a last line of 64 columns with padding; each malformed line refused with its reason', async () => {
  const d = fresh();
  const armoredOf = async (n: number) => (await armoredTo(d, rng.bytes(n), `a${n}.age`)).split('\n');
  // 168 + 16 + 86 + 16 = 286 bytes: five full lines and a last one of 64 columns ending in "=="
  const padded = await armoredOf(86);
  assert.match(padded.at(-3)!, /^[A-Za-z0-9+/]{62}==$/);
  await ageDecrypt({ identityFiles: [alice.file], input: join(d, 'a86.age'), output: join(d, 'a86.out'), jobs: 1 });
  assert.ok(readFileSync(join(d, 'a86.out')).equals(readFileSync(join(d, 'a86.age.in'))));
  const whole = await armoredOf(40); // five full lines, no short one
  await ageDecrypt({ identityFiles: [alice.file], input: join(d, 'a40.age'), output: join(d, 'a40.out'), jobs: 1 });
  assert.ok(readFileSync(join(d, 'a40.out')).equals(readFileSync(join(d, 'a40.age.in'))));
  const short = await armoredOf(101); // 301 bytes: a short last line of 20 columns, ending in "=="
  assert.match(short.at(-3)!, /^[A-Za-z0-9+/]{18}==$/);
  const notBase64 = 'invalid armor: a line that is not padded base64 (or a short line before the last)';
  const cases: [string[], string][] = [
    [[...whole.slice(0, -2), '', ...whole.slice(-2)], notBase64],
    [[...short.slice(0, -3), `!${short.at(-3)!.slice(1)}`, ...short.slice(-2)], notBase64],
    [[...short.slice(0, -3), `${short.at(-3)!.slice(0, -1)}!`, ...short.slice(-2)], notBase64],
    [[...short.slice(0, -3), short.at(-3)!.replace(/=+$/, ''), ...short.slice(-2)], notBase64],
    [[...short.slice(0, -4), short.at(-4)! + short.at(-3)!, ...short.slice(-2)], 'invalid armor: a line longer than 64 columns'],
    [[...short.slice(0, -4), `${short.at(-4)!.slice(0, 63)}!`, short.at(-3)!, ...short.slice(-2)], notBase64],
    [[...short.slice(0, -2), short.at(-3)!, ...short.slice(-2)], 'invalid armor: a short line is not followed by "-----END AGE ENCRYPTED FILE-----"'],
  ];
  for (const [lines, message] of cases) {
    writeFileSync(join(d, 'bad.age'), lines.join('\n'), 'latin1');
    await rejects(ageDecrypt({ identityFiles: [alice.file], input: join(d, 'bad.age'), output: join(d, 'bad.out'), jobs: 1 }), Failure, message);
  }
});

test('armor of exactly one decoder read (1 MiB): ended by white space after the end line; cut after a whole body line', async () => {
  const d = fresh();
  const plain = rng.bytes(700_000);
  const text = await armoredTo(d, plain, 'a.age');
  assert.ok(text.length < 1 << 20 && text.endsWith('-----END AGE ENCRYPTED FILE-----\n'));
  // the decoder's second read returns nothing: its end of input holds no line
  const padded = join(d, 'padded.age');
  writeFileSync(padded, text + ' '.repeat((1 << 20) - text.length), 'latin1');
  await ageDecrypt({ identityFiles: [alice.file], input: padded, output: join(d, 'padded.out'), jobs: 1 });
  assert.ok(readFileSync(join(d, 'padded.out')).equals(plain));
  // a longer file cut after a body line at exactly 1 MiB (26 of its lines end in CRLF to get
  // there: 35 + 16105 × 65 + 26 × 66 bytes): the input ends before the end line
  const lines = (await armoredTo(d, rng.bytes(900_000), 'b.age')).split('\n');
  const cut = `${lines[0]}\n${lines.slice(1, 27).join('\r\n')}\r\n${lines.slice(27, 16132).join('\n')}\n`;
  assert.equal(cut.length, 1 << 20);
  writeFileSync(join(d, 'cut.age'), cut, 'latin1');
  await rejects(ageDecrypt({ identityFiles: [alice.file], input: join(d, 'cut.age'), output: join(d, 'cut.out'), jobs: 1 }), Failure, 'invalid armor: the input ends before "-----END AGE ENCRYPTED FILE-----"');
  assert.ok(!ls(d).includes('cut.out'));
});

test('to stdout: an empty final chunk after a full one is refused after the full chunk went out, and the message says so once', async () => {
  const d = fresh();
  const f = join(d, 'e.age');
  const c = CASES.find((x) => x.name === 'an empty final chunk after a full one')!;
  writeFileSync(f, c.file);
  let err: unknown;
  const out = await stdoutOf(() => ageDecrypt({ identityFiles: [alice.file], input: f, jobs: 1 }).catch((e) => void (err = e)));
  assert.ok(err instanceof Failure, String(err));
  assert.equal(err.message, 'the payload ends with an empty final chunk after full ones (not a valid age file); 65536 bytes of authenticated plaintext before it were already written to stdout');
  assert.equal(out.length, 65536);
});
