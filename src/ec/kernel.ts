// The glue between one curve's kernel module (its exports: src/engine/wasm/ec.contract.ts, the
// contract every curve module shares) and the curve API.
// It moves bytes into the module's IO area, calls the kernel, copies results out, and wipes
// what held secrets (the IO area and the work space in scratch) after every call that had one.
//
// Constant time: the glue branches only on lengths, on public flags that the kernel returns for
// public inputs (is this public key on the curve?), and on the validity of a private key (an
// error either way). Private scalars are copied by position only; all arithmetic on them runs in
// the kernel.
//
// Memory (per module): IO area [0, 4096) — scalar at 0, point at 256, output at 512, field
// operands at 1024… (384 bytes apart: FE is up to 352 on the js backend); the work space at
// SCRATCH_PTR (WS_SIZE bytes, from the module); the fixed-base table in one engine slot, built
// on first use.

import { CtkitRangeError } from '../errors.js';
import { type Kernel, SCRATCH_PTR, type ModuleSource, getKernel } from '../engine/kernel.js';
import { backend } from '../engine/backend.js';
import type { CurveParams } from '../curves/params.js';
import type { EcExports } from '../engine/wasm/ec.contract.js';
import { checkBytes } from '../util/check.js';

/** IO-area offsets. */
export const IO = { K: 0, PT: 256, OUT: 512, A: 1024, B: 1024 + 384, R: 1024 + 768, BYTES: 1024 + 1152 } as const;
const IO_USED = 2560;

/** The slot size: the generator keeps every fixed-base table within 32 KB. On the js backend
 * (12-bit limbs: FE 176 bytes for a 256-bit field, 352 for P-521) ECDSA's verification table
 * needs 64·3·FE while it is built (ecdsa.ts): three times that. */
const TABLE_SLOT = 32 * 1024;
const slotFor = (src: ModuleSource) => ((src.backend ?? backend()) === 'js' ? 3 * TABLE_SLOT : TABLE_SLOT);

/** One curve's kernel instance and the operations the curve API needs, on byte strings. */
export class EcKernel {
  readonly params: CurveParams;
  readonly k: Kernel<EcExports>;
  readonly x: EcExports;
  readonly fieldBytes: number;
  readonly scalarBytes: number;
  readonly FE: number;
  readonly wsSize: number;
  readonly tableBytes: number;
  #table = -1;

  constructor(params: CurveParams, k: Kernel<EcExports>) {
    this.params = params;
    this.k = k;
    this.x = k.exports;
    this.fieldBytes = this.x.FIELD_BYTES.value as number;
    this.scalarBytes = this.x.SCALAR_BYTES.value as number;
    this.FE = this.x.FE.value as number;
    this.wsSize = this.x.WS_SIZE.value as number;
    this.tableBytes = this.x.TABLE_BYTES.value as number;
    if (this.fieldBytes * 2 + 1 > IO.OUT - IO.PT || this.FE > IO.B - IO.A) throw new Error('ec: IO layout too small');
    if (this.tableBytes > k.slotSize) throw new Error('ec: fixed-base table larger than its slot');
  }

  /** The fixed-base table (built on first use; public data, kept for the process's life). */
  table(): number {
    if (this.#table < 0) {
      const slot = this.k.allocSlot();
      this.x.base_table(slot, SCRATCH_PTR);
      this.k.wipe(SCRATCH_PTR, this.wsSize);
      this.#table = slot;
    }
    return this.#table;
  }

  /** Wipe the IO area and the work space. */
  wipe(): void {
    this.k.wipe(0, IO_USED);
    this.k.wipe(SCRATCH_PTR, this.wsSize);
  }

  /** 1 ≤ k < n (k: scalarBytes, big-endian). */
  scalarOk(k: Uint8Array): boolean {
    const u8 = this.k.u8;
    u8.set(k, IO.K);
    const ok = this.x.scalar_ok(IO.K) === 1;
    u8.fill(0, IO.K, IO.K + k.length);
    return ok;
  }

  /** Is x ‖ y (fieldBytes each) a point of the curve with coordinates below p? (public data) */
  checkPoint(xy: Uint8Array): boolean {
    this.k.u8.set(xy, IO.PT);
    const ok = this.x.check_point(IO.PT, SCRATCH_PTR) === 1;
    return ok;
  }

  /** y for x with the given parity, or undefined if x is not the x of a point. (public data) */
  decompress(x: Uint8Array, odd: boolean): Uint8Array<ArrayBuffer> | undefined {
    const L = this.fieldBytes;
    this.k.u8.set(x, IO.PT);
    const ok = this.x.decompress(IO.OUT, IO.PT, odd ? 1 : 0, SCRATCH_PTR) === 1;
    return ok ? this.k.u8.slice(IO.OUT, IO.OUT + L) : undefined;
  }

  /** x(k·Q) for a valid scalar and a checked point x ‖ y; undefined when k·Q is the identity. */
  ecdh(k: Uint8Array, xy: Uint8Array): Uint8Array<ArrayBuffer> | undefined {
    const L = this.fieldBytes;
    const u8 = this.k.u8;
    u8.set(k, IO.K);
    u8.set(xy, IO.PT);
    const ok = this.x.ecdh(IO.OUT, IO.K, IO.PT, SCRATCH_PTR) === 1;
    const out = this.k.u8.slice(IO.OUT, IO.OUT + L);
    this.wipe();
    if (!ok) {
      out.fill(0);
      return undefined;
    }
    return out;
  }

  /** x ‖ y of k·G for a valid scalar. */
  publicKey(k: Uint8Array): Uint8Array<ArrayBuffer> {
    const L = this.fieldBytes;
    const tab = this.table();
    this.k.u8.set(k, IO.K);
    const ok = this.x.pubkey(IO.OUT, IO.K, tab, SCRATCH_PTR) === 1;
    const out = this.k.u8.slice(IO.OUT, IO.OUT + 2 * L);
    this.wipe();
    if (!ok) throw new Error('ec: k·G is the identity (k was not checked)');
    return out;
  }
}

const instances = new Map<Kernel<EcExports>, EcKernel>();

/** The shared EcKernel of a curve (instantiated on first use). */
export function ecKernel(params: CurveParams, src: ModuleSource): EcKernel {
  const k = getKernel<EcExports>(src, slotFor(src)); // the instance of the backend in use (setBackend)
  let e = instances.get(k);
  if (!e) {
    e = new EcKernel(params, k);
    instances.set(k, e);
  }
  return e;
}

/**
 * Arithmetic modulo n (the group order) on big-endian byte strings of scalarBytes, through the
 * curve's mod-n Montgomery kernel (ECDSA's own signing arithmetic runs inside ecdsa_sign; ecdsa.ts
 * uses only reduce(), for bits2octets). Inputs may be any value
 * below 2^(8·scalarBytes) and are reduced mod n; outputs are canonical. Constant time in the
 * values (the kernel does the arithmetic; the glue only copies).
 */
export class ScalarField {
  readonly #e: EcKernel;
  readonly bytes: number;
  constructor(e: EcKernel) {
    this.#e = e;
    this.bytes = e.scalarBytes;
  }
  #run(op: (x: EcExports) => void, ...args: Uint8Array[]): Uint8Array<ArrayBuffer> {
    const e = this.#e,
      u8 = e.k.u8,
      x = e.x;
    const slots = [IO.A, IO.B];
    args.forEach((a, i) => {
      checkBytes('scalar operand', a);
      if (a.length !== this.bytes) throw new CtkitRangeError(`scalar operand must be ${this.bytes} bytes long, got ${a.length}`);
      u8.set(a, IO.BYTES + i * 128);
      x.fn_from_bytes(slots[i], IO.BYTES + i * 128);
    });
    op(x);
    x.fn_to_bytes(IO.BYTES, IO.R);
    const out = e.k.u8.slice(IO.BYTES, IO.BYTES + this.bytes);
    e.wipe();
    return out;
  }
  /** a·b mod n */
  mul(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
    return this.#run((x) => x.fn_mul(IO.R, IO.A, IO.B), a, b);
  }
  /** a + b mod n */
  add(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
    return this.#run((x) => x.fn_add(IO.R, IO.A, IO.B), a, b);
  }
  /** a − b mod n */
  sub(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
    return this.#run((x) => x.fn_sub(IO.R, IO.A, IO.B), a, b);
  }
  /** −a mod n */
  neg(a: Uint8Array): Uint8Array<ArrayBuffer> {
    return this.#run((x) => x.fn_neg(IO.R, IO.A), a);
  }
  /** a⁻¹ mod n (constant-time safegcd, fe_safegcd.ts); 0 for a ≡ 0 */
  inv(a: Uint8Array): Uint8Array<ArrayBuffer> {
    return this.#run((x) => x.fn_inv(IO.R, IO.A, SCRATCH_PTR), a);
  }
  /** a mod n */
  reduce(a: Uint8Array): Uint8Array<ArrayBuffer> {
    return this.#run((x) => x.fn_canon(IO.R, IO.A), a);
  }
  /** a·b + c mod n, in one call */
  mulAdd(a: Uint8Array, b: Uint8Array, c: Uint8Array): Uint8Array<ArrayBuffer> {
    const e = this.#e,
      u8 = e.k.u8,
      x = e.x;
    for (const v of [a, b, c]) {
      checkBytes('scalar operand', v);
      if (v.length !== this.bytes) throw new CtkitRangeError(`scalar operand must be ${this.bytes} bytes long, got ${v.length}`);
    }
    u8.set(a, IO.BYTES);
    x.fn_from_bytes(IO.A, IO.BYTES);
    u8.set(b, IO.BYTES);
    x.fn_from_bytes(IO.B, IO.BYTES);
    x.fn_mul(IO.R, IO.A, IO.B);
    u8.set(c, IO.BYTES);
    x.fn_from_bytes(IO.A, IO.BYTES);
    x.fn_add(IO.R, IO.R, IO.A);
    x.fn_to_bytes(IO.BYTES, IO.R);
    const out = u8.slice(IO.BYTES, IO.BYTES + this.bytes);
    e.wipe();
    return out;
  }
}
