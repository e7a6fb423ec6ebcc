// The package smoke: one program of every family, run by a consumer of the packed tarball under
// Node (ESM and require), Deno, Bun and Chromium (main thread and a Worker). It uses only what
// every runtime has (Uint8Array, TextEncoder, WebAssembly through ctkit) and takes its inputs and
// expected values from `cases`, which test/smoke/cases.ts computed with OpenSSL (node:crypto) at
// test time, or took from Wycheproof and the RFCs for what OpenSSL lacks. Expected values never
// come from ctkit. The signatures ctkit makes are returned for the driver to verify with OpenSSL.
//
// smoke(m, cases) → { checks: [{ name, ok, detail? }], signatures: { [curve]: { der, p1363 } } }
// m = { root, aead, mac, hash, ec }: the modules 'ctkit', 'ctkit/aead', 'ctkit/mac', 'ctkit/hash',
// 'ctkit/ec' as the runtime loaded them.

const HEX = '0123456789abcdef';
function hex(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i] >> 4] + HEX[bytes[i] & 15];
  return s;
}
function unhex(s) {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}
function flip(bytes, i) {
  const out = bytes.slice();
  out[i] ^= 1;
  return out;
}

export async function smoke(m, cases) {
  const checks = [];
  const signatures = {};
  const check = (name, ok, detail) => checks.push(ok ? { name, ok: true } : { name, ok: false, detail: String(detail ?? 'false') });
  const eq = (name, got, wantHex) => {
    const g = got instanceof Uint8Array ? hex(got) : `not a Uint8Array: ${Object.prototype.toString.call(got)}`;
    check(name, g === wantHex, `got ${g.slice(0, 80)}…, want ${wantHex.slice(0, 80)}…`);
  };
  const attempt = (name, fn) => {
    try {
      fn();
    } catch (e) {
      check(name, false, `threw ${e && e.name}: ${e && e.message}`);
    }
  };
  const throws = (name, fn, errorName, klass) => {
    try {
      fn();
      check(name, false, 'did not throw');
    } catch (e) {
      const okName = e && e.name === errorName;
      const okClass = klass === undefined || e instanceof klass;
      check(name, okName && okClass, `threw ${e && e.name} (${e && e.constructor && e.constructor.name}): ${e && e.message}`);
    }
  };

  await m.root.ready();
  check('ready() resolved; the root and the subpaths export the same objects',
    m.root.aesGcm === m.aead.aesGcm && m.root.ghash === m.mac.ghash && m.root.sha256 === m.hash.sha256 && m.root.p256 === m.ec.p256);

  // ---- AEADs ----------------------------------------------------------------------------------
  for (const c of cases.aead) {
    attempt(`${c.name}: runs`, () => {
      const key = unhex(c.key), nonce = unhex(c.nonce), aad = unhex(c.aad), pt = unhex(c.pt);
      const aead = m.aead[c.fn](key);
      const sealed = aead.seal(nonce, pt, aad);
      eq(`${c.name}: seal = ${c.source}`, sealed, c.sealed);
      eq(`${c.name}: open(expected) = plaintext`, aead.open(nonce, unhex(c.sealed), aad), c.pt);
      throws(`${c.name}: open of a flipped tag bit throws AuthenticationError`,
        () => aead.open(nonce, flip(unhex(c.sealed), c.sealed.length / 2 - 1), aad), 'AuthenticationError', m.root.AuthenticationError);
      if (aad.length > 0) throws(`${c.name}: open with a flipped AAD bit throws`, () => aead.open(nonce, unhex(c.sealed), flip(aad, 0)), 'AuthenticationError', m.root.CtkitError);
      aead.dispose();
    });
  }
  throws('aesGcm(15-byte key) throws CtkitRangeError, a RangeError', () => m.aead.aesGcm(new Uint8Array(15)), 'CtkitRangeError', RangeError);

  // ---- ChaCha20 / XChaCha20 / HChaCha20 --------------------------------------------------------
  for (const c of cases.stream) {
    attempt(`${c.name}: runs`, () => {
      const out = m.aead[c.fn](unhex(c.key), unhex(c.nonce), unhex(c.data), c.counter);
      eq(`${c.name} = ${c.source}`, out, c.out);
    });
  }
  attempt('hchacha20: runs', () => eq(`hchacha20 = ${cases.hchacha20.source}`, m.aead.hchacha20(unhex(cases.hchacha20.key), unhex(cases.hchacha20.nonce)), cases.hchacha20.out));

  // ---- MACs -----------------------------------------------------------------------------------
  for (const c of cases.mac) {
    attempt(`${c.name}: runs`, () => {
      const key = unhex(c.key), msg = unhex(c.msg);
      const f = m.mac[c.fn];
      eq(`${c.name} one-shot = ${c.source}`, f(key, msg), c.tag);
      const cut = Math.floor(msg.length / 3);
      eq(`${c.name} create().update()×2.digest()`, f.create(key).update(msg.subarray(0, cut)).update(msg.subarray(cut)).digest(), c.tag);
    });
  }

  // ---- hashes and HMAC -------------------------------------------------------------------------
  const enc = new TextEncoder();
  for (const c of cases.hash) {
    attempt(`${c.name}: runs`, () => {
      const h = m.hash[c.fn];
      const msg = unhex(c.msg);
      eq(`${c.name} = OpenSSL`, h(msg), c.digest);
      eq(`${c.name} create().update()×2.digest() = OpenSSL`, h.create().update(msg.subarray(0, 77)).update(msg.subarray(77)).digest(), c.digest);
      eq(`hmac(${c.fn}) = OpenSSL`, m.hash.hmac(h, unhex(c.hmacKey), msg), c.hmac);
      eq(`hmac.create(${c.fn}) = OpenSSL`, m.hash.hmac.create(h, unhex(c.hmacKey)).update(msg.subarray(0, 5)).update(msg.subarray(5)).digest(), c.hmac);
    });
  }
  attempt('sha256 of text', () => eq('sha256("abc") = FIPS 180-4', m.hash.sha256(enc.encode('abc')), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'));

  // ---- curves: ECDH, keys, ECDSA ---------------------------------------------------------------
  for (const c of cases.ec) {
    const curve = m.ec[c.curve];
    attempt(`${c.curve}: runs`, () => {
      const skA = unhex(c.skA), skB = unhex(c.skB);
      eq(`${c.curve} getPublicKey = OpenSSL`, curve.getPublicKey(skA), c.pkA);
      eq(`${c.curve} getPublicKey compressed = OpenSSL`, curve.getPublicKey(skA, { compressed: true }), c.pkAc);
      eq(`${c.curve} ecdh(a, B) = OpenSSL`, curve.ecdh(skA, unhex(c.pkB)), c.shared);
      eq(`${c.curve} ecdh(b, compressed A) = OpenSSL`, curve.ecdh(skB, unhex(c.pkAc)), c.shared);
      throws(`${c.curve} ecdh with a point off the curve throws InvalidKeyError`, () => curve.ecdh(skA, flip(unhex(c.pkB), unhex(c.pkB).length - 1)), 'InvalidKeyError', m.root.InvalidKeyError);

      // key import / export against OpenSSL's encodings of the same key
      eq(`${c.curve} importPrivateKey(OpenSSL pkcs8-der)`, curve.importPrivateKey(unhex(c.pkcs8Der), 'pkcs8-der'), c.skA);
      eq(`${c.curve} importPrivateKey(OpenSSL sec1-pem)`, curve.importPrivateKey(c.sec1Pem, 'sec1-pem'), c.skA);
      eq(`${c.curve} importPublicKey(OpenSSL spki-pem)`, curve.importPublicKey(c.spkiPem, 'spki-pem'), c.pkA);
      eq(`${c.curve} exportPrivateKey pkcs8-der = OpenSSL`, curve.exportPrivateKey(skA, 'pkcs8-der'), c.pkcs8Der);
      eq(`${c.curve} exportPublicKey spki-der = OpenSSL`, curve.exportPublicKey(unhex(c.pkA), 'spki-der'), c.spkiDer);
      check(`${c.curve} exportPrivateKey pkcs8-pem = OpenSSL`, curve.exportPrivateKey(skA, 'pkcs8-pem').trim() === c.pkcs8Pem.trim());
      if (c.jwk) {
        eq(`${c.curve} importPrivateKey(OpenSSL jwk)`, curve.importPrivateKey(c.jwk, 'jwk'), c.skA);
        const pub = curve.exportPublicKey(unhex(c.pkA), 'jwk');
        check(`${c.curve} exportPublicKey jwk = OpenSSL`, pub.kty === 'EC' && pub.crv === c.jwk.crv && pub.x === c.jwk.x && pub.y === c.jwk.y && pub.d === undefined, JSON.stringify(pub));
      }

      // ECDSA: OpenSSL's signatures verify, altered ones do not; ctkit's go back to the driver
      const msg = unhex(c.msg), pk = unhex(c.pkA);
      check(`${c.curve} verify(OpenSSL DER signature)`, curve.verify(unhex(c.sigDer), msg, pk) === true);
      check(`${c.curve} verify(OpenSSL P1363 signature)`, curve.verify(unhex(c.sigP1363), msg, pk, { format: 'p1363' }) === true);
      check(`${c.curve} verify(OpenSSL signature, altered message) = false`, curve.verify(unhex(c.sigDer), flip(msg, 0), pk) === false);
      check(`${c.curve} verify(altered P1363 signature) = false`, curve.verify(flip(unhex(c.sigP1363), 3), msg, pk, { format: 'p1363' }) === false);
      const der = curve.sign(msg, skA);
      const p1363 = curve.sign(msg, skA, { format: 'p1363' });
      check(`${c.curve} verify(own signature)`, curve.verify(der, msg, pk) === true && curve.verify(p1363, msg, pk, { format: 'p1363' }) === true);
      check(`${c.curve} P1363 signature is ${c.p1363Bytes} bytes`, p1363 instanceof Uint8Array && p1363.length === c.p1363Bytes, p1363.length);
      signatures[c.curve] = { der: hex(der), p1363: hex(p1363) };
    });
  }
  return { checks, signatures };
}

/** One line a driver can find in a runtime's stdout. */
export function report(result) {
  return 'CTKIT-SMOKE ' + JSON.stringify(result);
}

