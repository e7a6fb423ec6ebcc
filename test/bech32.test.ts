// Bech32 (BIP 173) as age uses it (src/cli/bech32.ts): BIP 173's valid and invalid strings, the
// age specification's example identity and recipient, and canonical padding. In a file of its
// own, with no command to run, so that `npm run test:mutation -- src/cli` kills a Bech32 mutant
// in a second instead of running the age interoperability tests (test/cli-age.test.ts) first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { bech32Decode, bech32Encode, bech32Values } from '../src/cli/bech32.js';

/** the X25519 public key of a raw private key, by OpenSSL (node:crypto) */
function x25519Public(sk: Uint8Array): Buffer {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), sk]);
  const spki = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({ format: 'der', type: 'spki' }) as Buffer;
  return spki.subarray(-32);
}

// the specification's example recipient: the public key of the identity 0x42 × 32
const RECIPIENT = 'age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj';

test("Bech32: BIP 173 vectors, age's example identity and recipient, canonical padding", () => {
  for (const s of [
    'A12UEL5L',
    'a12uel5l',
    'an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs',
    'abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw',
    '11qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqc8247j',
    'split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w',
    '?1ezyfcl',
    // invalid in BIP 173 only for its 90-character limit, which age does not have
    'an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx',
  ]) {
    assert.doesNotThrow(() => bech32Values(s), s);
  }
  // the alphabet in order is the values 0…31: 160 bits, 20 bytes with no padding
  const abc = bech32Decode('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw');
  assert.equal(abc.hrp, 'abcdef');
  assert.deepEqual(bech32Values('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw').values, [...Array(32).keys()]);
  assert.equal(Buffer.from(abc.data).toString('hex'), '00443214c74254b635cf84653a56d7c675be77df');
  assert.equal(bech32Encode('abcdef', abc.data), 'abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw');
  assert.deepEqual(bech32Decode('A12UEL5L'), { hrp: 'A', data: new Uint8Array(0) });
  assert.equal(bech32Encode('A', new Uint8Array(0)), 'A12UEL5L');
  assert.equal(bech32Encode('a', new Uint8Array(0)), 'a12uel5l');
  // BIP 173's invalid strings, each refused for its own reason
  for (const [s, why] of [
    ['\x201nwldj5', /^the human-readable part has an invalid character at position 0$/],
    ['\x7f1axkwrx', /^the human-readable part has an invalid character at position 0$/],
    ['\x801eym55h', /^the human-readable part has an invalid character at position 0$/],
    ['pzry9x0s0muk', /^it has no human-readable part before the separator "1"$/],
    ['1pzry9x0s0muk', /^it has no human-readable part before the separator "1"$/],
    ['x1b4n0q5v', /^it has a character outside the Bech32 alphabet at position 2$/],
    ['li1dgmt3', /^it is too short for a checksum after the separator "1"$/],
    ['de1lg7wt\xff', /^it has a character outside the Bech32 alphabet at position 8$/],
    ['A1G7SGD8', /^its checksum does not match \(a typo, or a truncated key\)$/],
    ['10a06t8', /^it has no human-readable part before the separator "1"$/],
    ['1qzzfhee', /^it has no human-readable part before the separator "1"$/],
    ['a12UEL5L', /^it mixes upper and lower case$/],
  ] as const) {
    assert.throws(() => bech32Values(s), { name: 'Bech32Error', message: why }, JSON.stringify(s));
  }
  // the encoder: the printable ASCII range of the human-readable part, both ends; one case
  for (const hrp of ['!', '~', 'a!~']) assert.equal(bech32Values(bech32Encode(hrp, Uint8Array.of(1, 2))).hrp, hrp);
  assert.throws(() => bech32Encode('', Uint8Array.of(1)), { name: 'Bech32Error', message: 'the human-readable part is empty' });
  assert.throws(() => bech32Encode('a b', Uint8Array.of(1)), { name: 'Bech32Error', message: 'the human-readable part has an invalid character at position 1' });
  assert.throws(() => bech32Encode('a\x7f', Uint8Array.of(1)), { name: 'Bech32Error', message: 'the human-readable part has an invalid character at position 1' });
  assert.throws(() => bech32Encode('Age', Uint8Array.of(1)), { name: 'Bech32Error', message: 'the human-readable part mixes upper and lower case' });
  // the specification's example: identity 0x42 × 32 and its recipient
  const id = bech32Decode('AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX');
  assert.equal(id.hrp, 'AGE-SECRET-KEY-');
  assert.deepEqual(Buffer.from(id.data), Buffer.alloc(32, 0x42));
  assert.equal(bech32Encode('AGE-SECRET-KEY-', id.data), 'AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX');
  assert.equal(bech32Encode('age', x25519Public(id.data)), RECIPIENT);
  // 32 bytes are 52 groups and 4 padding bits: nonzero padding and a spare group are refused
  const values = bech32Values(RECIPIENT).values;
  assert.equal(values.length, 52);
  const reencode = (v: number[]) => {
    // a valid checksum over other 5-bit values, through the encoder's checksum on bytes that give them
    const CH = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
    const s = 'age1' + v.map((x) => CH[x]).join('');
    // BIP 173's checksum, computed here: polymod over expand("age") ‖ values ‖ six zeros, xor 1
    const gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
    let chk = 1;
    for (const x of [3, 3, 3, 0, 1, 7, 5, ...v, 0, 0, 0, 0, 0, 0]) {
      const top = chk >>> 25;
      chk = (((chk & 0x1ffffff) << 5) ^ x) >>> 0;
      for (let j = 0; j < 5; j++) if ((top >>> j) & 1) chk = (chk ^ gen[j]) >>> 0;
    }
    chk ^= 1;
    return s + [0, 1, 2, 3, 4, 5].map((i) => CH[(chk >>> (5 * (5 - i))) & 31]).join('');
  };
  assert.equal(reencode(values), RECIPIENT, 'the test-side checksum reproduces a real recipient');
  const padded = [...values.slice(0, -1), values[51] | 1];
  assert.throws(() => bech32Decode(reencode(padded)), { name: 'Bech32Error', message: 'the data part has nonzero padding bits (not a canonical encoding)' });
  // three groups are 15 bits: one byte and 7 bits, a whole group more than padding needs
  assert.throws(() => bech32Decode(reencode([0, 0, 0])), { name: 'Bech32Error', message: 'the data part has a whole unused 5-bit group (not a canonical encoding)' });
  // one group is 5 bits: no byte, and a group that is all padding
  assert.throws(() => bech32Decode(reencode([0])), { name: 'Bech32Error', message: 'the data part has a whole unused 5-bit group (not a canonical encoding)' });
  assert.deepEqual(bech32Decode(reencode([0, 0])).data, Uint8Array.of(0));
});
