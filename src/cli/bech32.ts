// Bech32 (BIP 173) as age uses it: the original checksum constant 1 (not Bech32m), no limit on
// the length of the data part, one case per string (the checksum is over the lowercase form).
// age identities are AGE-SECRET-KEY-1… (uppercase), recipients age1… (lowercase).
//
//   string   = hrp ‖ "1" ‖ data ‖ checksum   (data and checksum: 5-bit values in CHARSET)
//   checksum = six values making polymod(expand(hrp) ‖ data ‖ checksum) = 1
//   expand   = the high 3 bits of each hrp character, 0, the low 5 bits of each
//
// Bytes become 5-bit groups most significant bit first, the last group padded with zero bits;
// decoding refuses more than 4 bits of padding and padding that is not zero, so each byte
// string has exactly one encoding.

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

/** A string that is not valid Bech32 (or not of the expected kind); the message says why. */
export class Bech32Error extends Error {
  override name = 'Bech32Error';
}

function polymod(values: ArrayLike<number>, chk = 1): number {
  for (let i = 0; i < values.length; i++) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ values[i]) >>> 0;
    for (let j = 0; j < 5; j++) if ((top >>> j) & 1) chk = (chk ^ GENERATOR[j]) >>> 0;
  }
  return chk;
}

function expandHrp(hrp: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) >> 5);
  out.push(0);
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) & 31);
  return out;
}

function checkHrp(hrp: string): void {
  if (hrp.length === 0) throw new Bech32Error('the human-readable part is empty');
  for (let i = 0; i < hrp.length; i++) {
    const c = hrp.charCodeAt(i);
    if (c < 33 || c > 126) throw new Bech32Error(`the human-readable part has an invalid character at position ${i}`);
  }
}

/** Bytes to 5-bit groups (the last padded with zero bits). */
function toFive(data: Uint8Array): number[] {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const b of data) {
    acc = ((acc << 8) | b) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push((acc >> bits) & 31);
    }
  }
  if (bits > 0) out.push((acc << (5 - bits)) & 31);
  return out;
}

/** 5-bit groups to bytes; at most 4 padding bits, all zero. */
function fromFive(groups: number[]): Uint8Array {
  const out = new Uint8Array(Math.floor((groups.length * 5) / 8));
  let acc = 0;
  let bits = 0;
  let n = 0;
  for (const g of groups) {
    acc = ((acc << 5) | g) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  if (bits >= 5) throw new Bech32Error('the data part has a whole unused 5-bit group (not a canonical encoding)');
  if ((acc & ((1 << bits) - 1)) !== 0) throw new Bech32Error('the data part has nonzero padding bits (not a canonical encoding)');
  return out;
}

/** hrp ‖ "1" ‖ data ‖ checksum; uppercase when hrp is uppercase, lowercase when it is lowercase. */
export function bech32Encode(hrp: string, data: Uint8Array): string {
  checkHrp(hrp);
  const lower = hrp.toLowerCase();
  const upper = hrp.toUpperCase();
  if (hrp !== lower && hrp !== upper) throw new Bech32Error('the human-readable part mixes upper and lower case');
  const values = toFive(data);
  const mod = polymod([...expandHrp(lower), ...values, 0, 0, 0, 0, 0, 0]) ^ 1;
  let s = lower + '1';
  for (const v of values) s += CHARSET[v];
  for (let i = 0; i < 6; i++) s += CHARSET[(mod >>> (5 * (5 - i))) & 31];
  return hrp === lower ? s : s.toUpperCase();
}

/** The human-readable part (in the string's own case) and the 5-bit values before the checksum. */
export function bech32Values(s: string): { hrp: string; values: number[] } {
  const lower = s.toLowerCase();
  if (s !== lower && s !== s.toUpperCase()) throw new Bech32Error('it mixes upper and lower case');
  const sep = s.lastIndexOf('1');
  if (sep < 1) throw new Bech32Error('it has no human-readable part before the separator "1"');
  if (sep + 7 > s.length) throw new Bech32Error('it is too short for a checksum after the separator "1"');
  const hrp = s.slice(0, sep);
  checkHrp(hrp);
  const values: number[] = [];
  for (let i = sep + 1; i < lower.length; i++) {
    const v = CHARSET.indexOf(lower[i]);
    if (v < 0) throw new Bech32Error(`it has a character outside the Bech32 alphabet at position ${i}`);
    values.push(v);
  }
  if (polymod(values, polymod(expandHrp(hrp.toLowerCase()))) !== 1) throw new Bech32Error('its checksum does not match (a typo, or a truncated key)');
  return { hrp, values: values.slice(0, -6) };
}

/** The human-readable part (in the string's own case) and the data bytes of a Bech32 string. */
export function bech32Decode(s: string): { hrp: string; data: Uint8Array } {
  const { hrp, values } = bech32Values(s);
  return { hrp, data: fromFive(values) };
}
