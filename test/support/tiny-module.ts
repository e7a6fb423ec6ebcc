// The smallest kernel module the engine accepts: `(module (memory (export "memory") N))`, written
// out byte by byte, so that engine tests control the memory size exactly.
export function tinyModule(pages: number): Uint8Array {
  if (pages < 0 || pages > 127) throw new RangeError('pages: 0 … 127 (one LEB128 byte)');
  return Uint8Array.of(
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00, // magic, version 1
    0x05,
    0x03,
    0x01,
    0x00,
    pages, // memory section: one memory, no maximum, `pages` pages
    0x07,
    0x0a,
    0x01,
    0x06,
    0x6d,
    0x65,
    0x6d,
    0x6f,
    0x72,
    0x79,
    0x02,
    0x00, // export "memory" = memory 0
  );
}
