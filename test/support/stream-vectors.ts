// Prints the test vectors of docs/stream-format.md from the reference model (src/ref/stream.ts):
//   npx tsx test/support/stream-vectors.ts
// test/stream-spec.test.ts reads them back from the document and holds the model and the
// implementation to them.
import { refSealStream, type RefStreamParams } from '../../src/ref/stream.js';
import { hex } from './rng.js';

const seq = (n: number, start = 0) => Uint8Array.from({ length: n }, (_, i) => (start + i) & 255);
const text = (s: string) => new TextEncoder().encode(s);

export const VECTOR_INPUTS: (RefStreamParams & { title: string; plaintext: Uint8Array })[] = [
  { title: 'ChaCha20-Poly1305, three segments (16, 16, 7 bytes)', algorithm: 'chacha20-poly1305', key: seq(32), prefix: seq(7, 0xa0), segmentSize: 16, plaintext: text('Segments of sixteen bytes, cut here.\n!!') },
  { title: 'ChaCha20-Poly1305, the same with a stream AAD', algorithm: 'chacha20-poly1305', key: seq(32), prefix: seq(7, 0xa0), segmentSize: 16, aad: text('ctkit stream aad'), plaintext: text('Segments of sixteen bytes, cut here.\n!!') },
  { title: 'AES-256-GCM, two full segments (the second is the final one)', algorithm: 'aes-256-gcm', key: seq(32, 0x40), prefix: seq(7, 0xb0), segmentSize: 16, plaintext: seq(32, 0x61) },
  { title: 'XChaCha20-Poly1305, the empty stream (one empty final segment)', algorithm: 'xchacha20-poly1305', key: seq(32, 0x80), prefix: seq(19, 0xc0), segmentSize: 65536, plaintext: new Uint8Array(0) },
  { title: 'AES-256-GCM-SIV, 17 bytes in segments of 16', algorithm: 'aes-256-gcm-siv', key: seq(32, 0x20), prefix: seq(7, 0xd0), segmentSize: 16, plaintext: seq(17, 0x30) },
  { title: 'SM4-GCM, 20 bytes in segments of 8', algorithm: 'sm4-gcm', key: seq(16, 0x10), prefix: seq(7, 0xe0), segmentSize: 8, plaintext: seq(20, 0x70) },
  {
    title: 'ChaCha20-Poly1305, 65 537 bytes in the default 64 KiB segments (plaintext byte i = i mod 251)',
    algorithm: 'chacha20-poly1305',
    key: seq(32, 0x55),
    prefix: seq(7, 0x11),
    segmentSize: 65536,
    plaintext: Uint8Array.from({ length: 65537 }, (_, i) => i % 251),
  },
];

const wrap = (h: string) => h.match(/.{1,64}/g)?.join('\n           ') ?? '';

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const v of VECTOR_INPUTS) {
    const sealed = refSealStream(v, v.plaintext);
    const big = v.plaintext.length > 1024;
    console.log(`### ${v.title}\n\n\`\`\`text`);
    console.log(`algorithm  ${v.algorithm}`);
    console.log(`key        ${hex(v.key)}`);
    console.log(`prefix     ${hex(v.prefix)}`);
    console.log(`segment    ${v.segmentSize}`);
    console.log(`aad        ${v.aad ? hex(v.aad) : '(none)'}`);
    if (big) {
      const { createHash } = await import('node:crypto');
      console.log(`plaintext  (${v.plaintext.length} bytes, byte i = i mod 251)`);
      console.log(`sealed     (${sealed.length} bytes) header and first 32 bytes: ${hex(sealed.subarray(0, 17 + 32))}`);
      console.log(`last 48    ${hex(sealed.subarray(sealed.length - 48))}`);
      console.log(`sha256     ${createHash('sha256').update(sealed).digest('hex')}`);
    } else {
      console.log(`plaintext  ${wrap(hex(v.plaintext))}`);
      console.log(`sealed     ${wrap(hex(sealed))}`);
    }
    console.log('```\n');
  }
}
