// WebAssembly 2.0 binary decoder, for the constant-time checker.
//
// Decodes every section and the complete instruction set: MVP, sign extension, non-trapping
// float-to-int (0xFC 0-7), bulk memory and reference types (0xFC 8-17), multi-value, all of
// SIMD128 (0xFD), plus tail calls (0x12/0x13) and threads atomics (0xFE), which are not part of
// 2.0 but cost a table each. Every instruction records the byte offset of its first opcode byte
// (the prefix byte for 0xFC/0xFD/0xFE) in the module. An unknown opcode or a malformed section
// is an error naming its offset: nothing is skipped silently.
// Opcode numbers and names follow the WebAssembly specification's binary and text formats.

type ValType = 'i32' | 'i64' | 'f32' | 'f64' | 'v128' | 'funcref' | 'externref';
interface FuncType {
  params: ValType[];
  results: ValType[];
}
interface Limits {
  min: number;
  max: number | null;
  shared: boolean;
}
interface TableType {
  ref: ValType;
  limits: Limits;
}
interface GlobalType {
  type: ValType;
  mutable: boolean;
}

type ExternKind = 'func' | 'table' | 'memory' | 'global';
interface Import {
  module: string;
  name: string;
  kind: ExternKind;
  offset: number;
  type?: number;
  table?: TableType;
  memory?: Limits;
  global?: GlobalType;
}
interface Export {
  name: string;
  kind: ExternKind;
  index: number;
  offset: number;
}
interface Global extends GlobalType {
  init: Instr[];
}
interface Element {
  mode: 'active' | 'passive' | 'declarative';
  table: number;
  offset: Instr[] | null;
  ref: ValType;
  funcs: number[];
  exprs: Instr[][];
}
interface Data {
  mode: 'active' | 'passive';
  memory: number;
  offset: Instr[] | null;
  size: number;
}
interface Code {
  offset: number;
  end: number;
  locals: ValType[];
  body: Instr[];
}
interface Custom {
  name: string;
  offset: number;
  payload: Uint8Array;
}

export interface Module {
  types: FuncType[];
  imports: Import[];
  funcs: number[]; // type index of each defined function (code section order)
  tables: TableType[];
  memories: Limits[];
  globals: Global[]; // defined globals
  exports: Export[];
  start: number | null;
  elements: Element[];
  datas: Data[];
  dataCount: number | null;
  codes: Code[];
  customs: Custom[];
  // Index spaces (imports first, then definitions):
  funcTypes: number[]; // type index of every function
  globalTypes: GlobalType[]; // type of every global
  importedFuncs: number;
  importedGlobals: number;
  names: Map<number, string>; // function names from the `name` custom section
}

// ---- instructions ----

/** Immediate layout of an opcode. */
type Imm =
  | 'none'
  | 'blocktype'
  | 'label'
  | 'br_table'
  | 'func'
  | 'call_indirect'
  | 'local'
  | 'global'
  | 'table'
  | 'table2'
  | 'memory'
  | 'memory2'
  | 'data'
  | 'memory_init'
  | 'elem'
  | 'table_init'
  | 'memarg'
  | 'memarg_lane'
  | 'lane'
  | 'i32'
  | 'i64'
  | 'f32'
  | 'f64'
  | 'v128'
  | 'shuffle'
  | 'select_t'
  | 'reftype'
  | 'fence';

/** An opcode: its text-format name, immediates, and operand/result counts (-1: depends on immediates). */
export interface Op {
  name: string;
  imm: Imm;
  pop: number;
  push: number;
}

interface MemArg {
  align: number;
  offset: number;
  memory: number;
}
export type BlockType = null | ValType | number; // empty, one result, or a type index

export interface Instr {
  offset: number; // byte offset of the (first) opcode byte in the module
  end: number; // byte offset just past the instruction
  op: Op;
  name: string;
  index?: number; // label, function, type, local, global, table, memory, data or element index
  index2?: number; // second index: call_indirect table, table.copy source, table.init element, memory.copy source
  labels?: number[]; // br_table: targets, then the default last
  blockType?: BlockType;
  memarg?: MemArg;
  lane?: number;
  value?: number | bigint; // i32.const / i64.const
  bytes?: Uint8Array; // raw f32/f64/v128 constant bytes, shuffle lanes
  types?: ValType[]; // typed select
}

export const ops = new Map<number, Op>(); // single-byte opcodes
export const opsFC = new Map<number, Op>(); // 0xFC prefix
export const opsFD = new Map<number, Op>(); // 0xFD prefix (SIMD128)
export const opsFE = new Map<number, Op>(); // 0xFE prefix (atomics)

function def(table: Map<number, Op>, code: number, name: string, imm: Imm, pop: number, push: number): void {
  table.set(code, { name, imm, pop, push });
}
function run(table: Map<number, Op>, first: number, names: string[], imm: Imm, pop: number, push: number): void {
  names.forEach((n, i) => {
    if (n) def(table, first + i, n, imm, pop, push);
  });
}
const pre = (p: string, xs: string[]) => xs.map((x) => (x ? `${p}.${x}` : ''));

// Control, parametric, variables, tables, memory.
def(ops, 0x00, 'unreachable', 'none', 0, 0);
def(ops, 0x01, 'nop', 'none', 0, 0);
def(ops, 0x02, 'block', 'blocktype', -1, -1);
def(ops, 0x03, 'loop', 'blocktype', -1, -1);
def(ops, 0x04, 'if', 'blocktype', -1, -1);
def(ops, 0x05, 'else', 'none', -1, -1);
def(ops, 0x0b, 'end', 'none', -1, -1);
def(ops, 0x0c, 'br', 'label', -1, -1);
def(ops, 0x0d, 'br_if', 'label', -1, -1);
def(ops, 0x0e, 'br_table', 'br_table', -1, -1);
def(ops, 0x0f, 'return', 'none', -1, -1);
def(ops, 0x10, 'call', 'func', -1, -1);
def(ops, 0x11, 'call_indirect', 'call_indirect', -1, -1);
def(ops, 0x12, 'return_call', 'func', -1, -1);
def(ops, 0x13, 'return_call_indirect', 'call_indirect', -1, -1);
def(ops, 0x1a, 'drop', 'none', 1, 0);
def(ops, 0x1b, 'select', 'none', 3, 1);
def(ops, 0x1c, 'select', 'select_t', 3, 1);
def(ops, 0x20, 'local.get', 'local', 0, 1);
def(ops, 0x21, 'local.set', 'local', 1, 0);
def(ops, 0x22, 'local.tee', 'local', 1, 1);
def(ops, 0x23, 'global.get', 'global', 0, 1);
def(ops, 0x24, 'global.set', 'global', 1, 0);
def(ops, 0x25, 'table.get', 'table', 1, 1);
def(ops, 0x26, 'table.set', 'table', 2, 0);
run(ops, 0x28, ['i32.load', 'i64.load', 'f32.load', 'f64.load', 'i32.load8_s', 'i32.load8_u', 'i32.load16_s', 'i32.load16_u', 'i64.load8_s', 'i64.load8_u', 'i64.load16_s', 'i64.load16_u', 'i64.load32_s', 'i64.load32_u'], 'memarg', 1, 1);
run(ops, 0x36, ['i32.store', 'i64.store', 'f32.store', 'f64.store', 'i32.store8', 'i32.store16', 'i64.store8', 'i64.store16', 'i64.store32'], 'memarg', 2, 0);
def(ops, 0x3f, 'memory.size', 'memory', 0, 1);
def(ops, 0x40, 'memory.grow', 'memory', 1, 1);
def(ops, 0x41, 'i32.const', 'i32', 0, 1);
def(ops, 0x42, 'i64.const', 'i64', 0, 1);
def(ops, 0x43, 'f32.const', 'f32', 0, 1);
def(ops, 0x44, 'f64.const', 'f64', 0, 1);

// Numeric.
const icmp = ['eq', 'ne', 'lt_s', 'lt_u', 'gt_s', 'gt_u', 'le_s', 'le_u', 'ge_s', 'ge_u'];
const fcmp = ['eq', 'ne', 'lt', 'gt', 'le', 'ge'];
const iun = ['clz', 'ctz', 'popcnt'];
const ibin = ['add', 'sub', 'mul', 'div_s', 'div_u', 'rem_s', 'rem_u', 'and', 'or', 'xor', 'shl', 'shr_s', 'shr_u', 'rotl', 'rotr'];
const fun = ['abs', 'neg', 'ceil', 'floor', 'trunc', 'nearest', 'sqrt'];
const fbin = ['add', 'sub', 'mul', 'div', 'min', 'max', 'copysign'];
def(ops, 0x45, 'i32.eqz', 'none', 1, 1);
run(ops, 0x46, pre('i32', icmp), 'none', 2, 1);
def(ops, 0x50, 'i64.eqz', 'none', 1, 1);
run(ops, 0x51, pre('i64', icmp), 'none', 2, 1);
run(ops, 0x5b, pre('f32', fcmp), 'none', 2, 1);
run(ops, 0x61, pre('f64', fcmp), 'none', 2, 1);
run(ops, 0x67, pre('i32', iun), 'none', 1, 1);
run(ops, 0x6a, pre('i32', ibin), 'none', 2, 1);
run(ops, 0x79, pre('i64', iun), 'none', 1, 1);
run(ops, 0x7c, pre('i64', ibin), 'none', 2, 1);
run(ops, 0x8b, pre('f32', fun), 'none', 1, 1);
run(ops, 0x92, pre('f32', fbin), 'none', 2, 1);
run(ops, 0x99, pre('f64', fun), 'none', 1, 1);
run(ops, 0xa0, pre('f64', fbin), 'none', 2, 1);
run(
  ops,
  0xa7,
  [
    'i32.wrap_i64',
    'i32.trunc_f32_s',
    'i32.trunc_f32_u',
    'i32.trunc_f64_s',
    'i32.trunc_f64_u',
    'i64.extend_i32_s',
    'i64.extend_i32_u',
    'i64.trunc_f32_s',
    'i64.trunc_f32_u',
    'i64.trunc_f64_s',
    'i64.trunc_f64_u',
    'f32.convert_i32_s',
    'f32.convert_i32_u',
    'f32.convert_i64_s',
    'f32.convert_i64_u',
    'f32.demote_f64',
    'f64.convert_i32_s',
    'f64.convert_i32_u',
    'f64.convert_i64_s',
    'f64.convert_i64_u',
    'f64.promote_f32',
    'i32.reinterpret_f32',
    'i64.reinterpret_f64',
    'f32.reinterpret_i32',
    'f64.reinterpret_i64',
    'i32.extend8_s',
    'i32.extend16_s',
    'i64.extend8_s',
    'i64.extend16_s',
    'i64.extend32_s',
  ],
  'none',
  1,
  1,
);

// Reference types.
def(ops, 0xd0, 'ref.null', 'reftype', 0, 1);
def(ops, 0xd1, 'ref.is_null', 'none', 1, 1);
def(ops, 0xd2, 'ref.func', 'func', 0, 1);

// 0xFC: saturating truncation, bulk memory, table instructions.
run(opsFC, 0, ['i32.trunc_sat_f32_s', 'i32.trunc_sat_f32_u', 'i32.trunc_sat_f64_s', 'i32.trunc_sat_f64_u', 'i64.trunc_sat_f32_s', 'i64.trunc_sat_f32_u', 'i64.trunc_sat_f64_s', 'i64.trunc_sat_f64_u'], 'none', 1, 1);
def(opsFC, 8, 'memory.init', 'memory_init', 3, 0);
def(opsFC, 9, 'data.drop', 'data', 0, 0);
def(opsFC, 10, 'memory.copy', 'memory2', 3, 0);
def(opsFC, 11, 'memory.fill', 'memory', 3, 0);
def(opsFC, 12, 'table.init', 'table_init', 3, 0);
def(opsFC, 13, 'elem.drop', 'elem', 0, 0);
def(opsFC, 14, 'table.copy', 'table2', 3, 0);
def(opsFC, 15, 'table.grow', 'table', 2, 1);
def(opsFC, 16, 'table.size', 'table', 0, 1);
def(opsFC, 17, 'table.fill', 'table', 3, 0);

// 0xFD: SIMD128. Operand counts follow from the name (see simdArity).
const simd: [number, string[]][] = [
  [
    0x00,
    [
      'v128.load',
      'v128.load8x8_s',
      'v128.load8x8_u',
      'v128.load16x4_s',
      'v128.load16x4_u',
      'v128.load32x2_s',
      'v128.load32x2_u',
      'v128.load8_splat',
      'v128.load16_splat',
      'v128.load32_splat',
      'v128.load64_splat',
      'v128.store',
      'v128.const',
      'i8x16.shuffle',
      'i8x16.swizzle',
      'i8x16.splat',
      'i16x8.splat',
      'i32x4.splat',
      'i64x2.splat',
      'f32x4.splat',
      'f64x2.splat',
      'i8x16.extract_lane_s',
      'i8x16.extract_lane_u',
      'i8x16.replace_lane',
      'i16x8.extract_lane_s',
      'i16x8.extract_lane_u',
      'i16x8.replace_lane',
      'i32x4.extract_lane',
      'i32x4.replace_lane',
      'i64x2.extract_lane',
      'i64x2.replace_lane',
      'f32x4.extract_lane',
      'f32x4.replace_lane',
      'f64x2.extract_lane',
      'f64x2.replace_lane',
    ],
  ],
  [0x23, pre('i8x16', icmp)],
  [0x2d, pre('i16x8', icmp)],
  [0x37, pre('i32x4', icmp)],
  [0x41, pre('f32x4', fcmp)],
  [0x47, pre('f64x2', fcmp)],
  [
    0x4d,
    [
      'v128.not',
      'v128.and',
      'v128.andnot',
      'v128.or',
      'v128.xor',
      'v128.bitselect',
      'v128.any_true',
      'v128.load8_lane',
      'v128.load16_lane',
      'v128.load32_lane',
      'v128.load64_lane',
      'v128.store8_lane',
      'v128.store16_lane',
      'v128.store32_lane',
      'v128.store64_lane',
      'v128.load32_zero',
      'v128.load64_zero',
      'f32x4.demote_f64x2_zero',
      'f64x2.promote_low_f32x4',
      'i8x16.abs',
      'i8x16.neg',
      'i8x16.popcnt',
      'i8x16.all_true',
      'i8x16.bitmask',
      'i8x16.narrow_i16x8_s',
      'i8x16.narrow_i16x8_u',
      'f32x4.ceil',
      'f32x4.floor',
      'f32x4.trunc',
      'f32x4.nearest',
      'i8x16.shl',
      'i8x16.shr_s',
      'i8x16.shr_u',
      'i8x16.add',
      'i8x16.add_sat_s',
      'i8x16.add_sat_u',
      'i8x16.sub',
      'i8x16.sub_sat_s',
      'i8x16.sub_sat_u',
      'f64x2.ceil',
      'f64x2.floor',
      'i8x16.min_s',
      'i8x16.min_u',
      'i8x16.max_s',
      'i8x16.max_u',
      'f64x2.trunc',
      'i8x16.avgr_u',
      'i16x8.extadd_pairwise_i8x16_s',
      'i16x8.extadd_pairwise_i8x16_u',
      'i32x4.extadd_pairwise_i16x8_s',
      'i32x4.extadd_pairwise_i16x8_u',
    ],
  ],
  [
    0x80,
    [
      'i16x8.abs',
      'i16x8.neg',
      'i16x8.q15mulr_sat_s',
      'i16x8.all_true',
      'i16x8.bitmask',
      'i16x8.narrow_i32x4_s',
      'i16x8.narrow_i32x4_u',
      'i16x8.extend_low_i8x16_s',
      'i16x8.extend_high_i8x16_s',
      'i16x8.extend_low_i8x16_u',
      'i16x8.extend_high_i8x16_u',
      'i16x8.shl',
      'i16x8.shr_s',
      'i16x8.shr_u',
      'i16x8.add',
      'i16x8.add_sat_s',
      'i16x8.add_sat_u',
      'i16x8.sub',
      'i16x8.sub_sat_s',
      'i16x8.sub_sat_u',
      'f64x2.nearest',
      'i16x8.mul',
      'i16x8.min_s',
      'i16x8.min_u',
      'i16x8.max_s',
      'i16x8.max_u',
      '',
      'i16x8.avgr_u',
      'i16x8.extmul_low_i8x16_s',
      'i16x8.extmul_high_i8x16_s',
      'i16x8.extmul_low_i8x16_u',
      'i16x8.extmul_high_i8x16_u',
    ],
  ],
  [
    0xa0,
    [
      'i32x4.abs',
      'i32x4.neg',
      '',
      'i32x4.all_true',
      'i32x4.bitmask',
      '',
      '',
      'i32x4.extend_low_i16x8_s',
      'i32x4.extend_high_i16x8_s',
      'i32x4.extend_low_i16x8_u',
      'i32x4.extend_high_i16x8_u',
      'i32x4.shl',
      'i32x4.shr_s',
      'i32x4.shr_u',
      'i32x4.add',
      '',
      '',
      'i32x4.sub',
      '',
      '',
      '',
      'i32x4.mul',
      'i32x4.min_s',
      'i32x4.min_u',
      'i32x4.max_s',
      'i32x4.max_u',
      'i32x4.dot_i16x8_s',
      '',
      'i32x4.extmul_low_i16x8_s',
      'i32x4.extmul_high_i16x8_s',
      'i32x4.extmul_low_i16x8_u',
      'i32x4.extmul_high_i16x8_u',
    ],
  ],
  [
    0xc0,
    [
      'i64x2.abs',
      'i64x2.neg',
      '',
      'i64x2.all_true',
      'i64x2.bitmask',
      '',
      '',
      'i64x2.extend_low_i32x4_s',
      'i64x2.extend_high_i32x4_s',
      'i64x2.extend_low_i32x4_u',
      'i64x2.extend_high_i32x4_u',
      'i64x2.shl',
      'i64x2.shr_s',
      'i64x2.shr_u',
      'i64x2.add',
      '',
      '',
      'i64x2.sub',
      '',
      '',
      '',
      'i64x2.mul',
      'i64x2.eq',
      'i64x2.ne',
      'i64x2.lt_s',
      'i64x2.gt_s',
      'i64x2.le_s',
      'i64x2.ge_s',
      'i64x2.extmul_low_i32x4_s',
      'i64x2.extmul_high_i32x4_s',
      'i64x2.extmul_low_i32x4_u',
      'i64x2.extmul_high_i32x4_u',
    ],
  ],
  [
    0xe0,
    [
      'f32x4.abs',
      'f32x4.neg',
      '',
      'f32x4.sqrt',
      'f32x4.add',
      'f32x4.sub',
      'f32x4.mul',
      'f32x4.div',
      'f32x4.min',
      'f32x4.max',
      'f32x4.pmin',
      'f32x4.pmax',
      'f64x2.abs',
      'f64x2.neg',
      '',
      'f64x2.sqrt',
      'f64x2.add',
      'f64x2.sub',
      'f64x2.mul',
      'f64x2.div',
      'f64x2.min',
      'f64x2.max',
      'f64x2.pmin',
      'f64x2.pmax',
      'i32x4.trunc_sat_f32x4_s',
      'i32x4.trunc_sat_f32x4_u',
      'f32x4.convert_i32x4_s',
      'f32x4.convert_i32x4_u',
      'i32x4.trunc_sat_f64x2_s_zero',
      'i32x4.trunc_sat_f64x2_u_zero',
      'f64x2.convert_low_i32x4_s',
      'f64x2.convert_low_i32x4_u',
    ],
  ],
];
const simdUnary = /splat|extract_lane|\.not$|\.abs$|\.neg$|popcnt|all_true|any_true|bitmask|extend_|extadd_|ceil|floor|\.trunc$|nearest|sqrt|demote|promote|trunc_sat|convert/;
function simdOp(name: string): Op {
  if (/_lane$/.test(name) && name.startsWith('v128.load')) return { name, imm: 'memarg_lane', pop: 2, push: 1 };
  if (/_lane$/.test(name) && name.startsWith('v128.store')) return { name, imm: 'memarg_lane', pop: 2, push: 0 };
  if (name === 'v128.store') return { name, imm: 'memarg', pop: 2, push: 0 };
  if (name.startsWith('v128.load')) return { name, imm: 'memarg', pop: 1, push: 1 };
  if (name === 'v128.const') return { name, imm: 'v128', pop: 0, push: 1 };
  if (name === 'i8x16.shuffle') return { name, imm: 'shuffle', pop: 2, push: 1 };
  if (name.endsWith('extract_lane') || /extract_lane_[su]$/.test(name)) return { name, imm: 'lane', pop: 1, push: 1 };
  if (name.endsWith('replace_lane')) return { name, imm: 'lane', pop: 2, push: 1 };
  if (name === 'v128.bitselect') return { name, imm: 'none', pop: 3, push: 1 };
  return { name, imm: 'none', pop: simdUnary.test(name) ? 1 : 2, push: 1 };
}
for (const [first, names] of simd)
  names.forEach((n, i) => {
    if (n) opsFD.set(first + i, simdOp(n));
  });

// 0xFE: threads atomics (not WebAssembly 2.0; decoded so that they are checked, not rejected).
def(opsFE, 0x00, 'memory.atomic.notify', 'memarg', 2, 1);
def(opsFE, 0x01, 'memory.atomic.wait32', 'memarg', 3, 1);
def(opsFE, 0x02, 'memory.atomic.wait64', 'memarg', 3, 1);
def(opsFE, 0x03, 'atomic.fence', 'fence', 0, 0);
const atomicWidths = ['i32.atomic.%', 'i64.atomic.%', 'i32.atomic.%8', 'i32.atomic.%16', 'i64.atomic.%8', 'i64.atomic.%16', 'i64.atomic.%32'];
run(
  opsFE,
  0x10,
  atomicWidths.map((w) => w.replace('%', 'load') + (/\d$/.test(w) ? '_u' : '')),
  'memarg',
  1,
  1,
);
run(
  opsFE,
  0x17,
  atomicWidths.map((w) => w.replace('%', 'store')),
  'memarg',
  2,
  0,
);
['add', 'sub', 'and', 'or', 'xor', 'xchg', 'cmpxchg'].forEach((rmw, k) => {
  const names = atomicWidths.map((w) => w.replace('%', 'rmw') + '.' + rmw + (/\d$/.test(w) ? '_u' : ''));
  run(opsFE, 0x1e + 7 * k, names, 'memarg', rmw === 'cmpxchg' ? 3 : 2, 1);
});

// ---- reader ----

export class DecodeError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(`wasm decode error @0x${offset.toString(16)}: ${message}`);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

class Reader {
  constructor(
    readonly buf: Uint8Array,
    public pos: number,
    readonly end: number,
  ) {}
  fail(msg: string, at = this.pos): never {
    throw new DecodeError(at, msg);
  }
  eof(): boolean {
    return this.pos >= this.end;
  }
  u8(): number {
    if (this.pos >= this.end) this.fail('unexpected end');
    return this.buf[this.pos++];
  }
  take(n: number): Uint8Array {
    if (n > this.end - this.pos) this.fail('unexpected end');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  /** Unsigned LEB128 of at most 32 bits. */
  u32(): number {
    const at = this.pos;
    let result = 0;
    for (let shift = 0; ; shift += 7) {
      const b = this.u8();
      result += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) break;
      if (shift >= 28) this.fail('LEB128 too long', at);
    }
    return result < 2 ** 32 ? result : this.fail('LEB128 out of range', at);
  }
  /** Signed LEB128 of at most `bits` bits. */
  sleb(bits: number): bigint {
    const at = this.pos;
    let result = 0n,
      shift = 0,
      b = 0;
    do {
      if (shift >= bits) this.fail('LEB128 too long', at);
      b = this.u8();
      result |= BigInt(b & 0x7f) << BigInt(shift);
      shift += 7;
    } while (b & 0x80);
    const v = BigInt.asIntN(shift, result); // sign-extend from the last bit read
    return BigInt.asIntN(bits, v) === v ? v : this.fail('signed LEB128 out of range', at);
  }
  name(): string {
    const n = this.u32(),
      at = this.pos;
    try {
      return utf8.decode(this.take(n));
    } catch {
      return this.fail('invalid UTF-8 name', at);
    }
  }
  vec<T>(item: () => T): T[] {
    const n = this.u32();
    if (n > this.end - this.pos) this.fail('vector longer than its section');
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(item());
    return out;
  }
  valtype(): ValType {
    const at = this.pos,
      b = this.u8();
    const t = ({ 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64', 0x7b: 'v128', 0x70: 'funcref', 0x6f: 'externref' } as Record<number, ValType>)[b];
    return t ?? this.fail(`unknown value type 0x${b.toString(16)}`, at);
  }
  reftype(): ValType {
    const at = this.pos,
      t = this.valtype();
    return t === 'funcref' || t === 'externref' ? t : this.fail('expected a reference type', at);
  }
  limits(): Limits {
    const at = this.pos,
      flag = this.u8();
    if (flag > 3) this.fail(`unknown limits flag ${flag}`, at);
    const min = this.u32();
    return { min, max: flag & 1 ? this.u32() : null, shared: (flag & 2) !== 0 };
  }
  memarg(): MemArg {
    let align = this.u32(),
      memory = 0;
    if (align & 0x40) {
      align &= ~0x40;
      memory = this.u32();
    } // multi-memory encoding
    return { align, offset: this.u32(), memory };
  }
  blockType(): BlockType {
    const b = this.buf[this.pos];
    if (b === 0x40) {
      this.pos++;
      return null;
    }
    if (b >= 0x6f && b <= 0x7f && b !== 0x71) return this.valtype();
    const at = this.pos,
      idx = this.sleb(33);
    return idx >= 0n ? Number(idx) : this.fail('invalid block type', at);
  }

  instr(): Instr {
    const offset = this.pos,
      code = this.u8();
    let op: Op | undefined;
    if (code === 0xfc || code === 0xfd || code === 0xfe) {
      const sub = this.u32();
      op = (code === 0xfc ? opsFC : code === 0xfd ? opsFD : opsFE).get(sub);
      if (!op) this.fail(`unknown opcode 0x${code.toString(16)} ${sub}`, offset);
    } else {
      op = ops.get(code);
      if (!op) this.fail(`unknown opcode 0x${code.toString(16)}`, offset);
    }
    const i: Instr = { offset, end: 0, op, name: op.name };
    switch (op.imm) {
      case 'none':
        break;
      case 'blocktype':
        i.blockType = this.blockType();
        break;
      case 'label':
      case 'func':
      case 'local':
      case 'global':
      case 'table':
      case 'memory':
      case 'data':
      case 'elem':
        i.index = this.u32();
        break;
      case 'br_table': {
        const ls = this.vec(() => this.u32());
        ls.push(this.u32());
        i.labels = ls;
        break;
      }
      case 'call_indirect':
        i.index = this.u32();
        i.index2 = this.u32();
        break;
      case 'table2':
      case 'memory2':
        i.index = this.u32();
        i.index2 = this.u32();
        break;
      case 'memory_init':
        i.index = this.u32();
        i.index2 = this.u32();
        break; // data index, memory
      case 'table_init':
        i.index2 = this.u32();
        i.index = this.u32();
        break; // element index, table
      case 'memarg':
        i.memarg = this.memarg();
        break;
      case 'memarg_lane':
        i.memarg = this.memarg();
        i.lane = this.u8();
        break;
      case 'lane':
        i.lane = this.u8();
        break;
      case 'i32':
        i.value = Number(this.sleb(32));
        break;
      case 'i64':
        i.value = this.sleb(64);
        break;
      case 'f32':
        i.bytes = this.take(4);
        break;
      case 'f64':
        i.bytes = this.take(8);
        break;
      case 'v128':
      case 'shuffle':
        i.bytes = this.take(16);
        break;
      case 'select_t':
        i.types = this.vec(() => this.valtype());
        break;
      case 'reftype':
        i.types = [this.reftype()];
        break;
      case 'fence':
        if (this.u8() !== 0) this.fail('atomic.fence flags must be 0', offset);
        break;
    }
    i.end = this.pos;
    return i;
  }

  /** An instruction sequence up to and including the `end` that closes it. */
  expr(): Instr[] {
    const out: Instr[] = [];
    let depth = 0;
    for (;;) {
      const i = this.instr();
      out.push(i);
      if (i.name === 'block' || i.name === 'loop' || i.name === 'if') depth++;
      else if (i.name === 'end' && depth-- === 0) return out;
    }
  }
}

// ---- module ----

export function decode(bytes: Uint8Array): Module {
  const r = new Reader(bytes, 0, bytes.length);
  const magic = r.take(4),
    version = r.take(4);
  if (magic.join() !== '0,97,115,109') r.fail('not a WebAssembly module', 0);
  if (version.join() !== '1,0,0,0') r.fail('unsupported binary version', 4);

  const m: Module = {
    types: [],
    imports: [],
    funcs: [],
    tables: [],
    memories: [],
    globals: [],
    exports: [],
    start: null,
    elements: [],
    datas: [],
    dataCount: null,
    codes: [],
    customs: [],
    funcTypes: [],
    globalTypes: [],
    importedFuncs: 0,
    importedGlobals: 0,
    names: new Map(),
  };
  // Non-custom sections appear at most once, in this order (data count sits between element and code).
  const order = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 10, 11];
  let last = -1;

  while (!r.eof()) {
    const secStart = r.pos,
      id = r.u8(),
      size = r.u32();
    if (size > r.end - r.pos) r.fail('section extends past the end', secStart);
    const s = new Reader(bytes, r.pos, r.pos + size);
    r.pos += size;
    if (id !== 0) {
      const rank = order.indexOf(id);
      if (rank < 0) s.fail(`unknown section id ${id}`, secStart);
      if (rank <= last) s.fail(`section ${id} out of order or duplicated`, secStart);
      last = rank;
    }
    switch (id) {
      case 0: {
        const name = s.name();
        m.customs.push({ name, offset: secStart, payload: bytes.subarray(s.pos, s.end) });
        s.pos = s.end;
        break;
      }
      case 1:
        m.types = s.vec(() => {
          if (s.u8() !== 0x60) s.fail('expected function type 0x60', s.pos - 1);
          return { params: s.vec(() => s.valtype()), results: s.vec(() => s.valtype()) };
        });
        break;
      case 2:
        m.imports = s.vec(() => {
          const offset = s.pos,
            module = s.name(),
            name = s.name(),
            at = s.pos,
            kind = s.u8();
          if (kind === 0) return { module, name, offset, kind: 'func', type: s.u32() };
          if (kind === 1) return { module, name, offset, kind: 'table', table: { ref: s.reftype(), limits: s.limits() } };
          if (kind === 2) return { module, name, offset, kind: 'memory', memory: s.limits() };
          if (kind === 3) return { module, name, offset, kind: 'global', global: { type: s.valtype(), mutable: globalMut(s) } };
          return s.fail(`unknown import kind ${kind}`, at);
        });
        break;
      case 3:
        m.funcs = s.vec(() => s.u32());
        break;
      case 4:
        m.tables = s.vec(() => ({ ref: s.reftype(), limits: s.limits() }));
        break;
      case 5:
        m.memories = s.vec(() => s.limits());
        break;
      case 6:
        m.globals = s.vec(() => ({ type: s.valtype(), mutable: globalMut(s), init: s.expr() }));
        break;
      case 7:
        m.exports = s.vec(() => {
          const offset = s.pos,
            name = s.name(),
            at = s.pos,
            k = s.u8();
          const kind = (['func', 'table', 'memory', 'global'] as const)[k] ?? s.fail(`unknown export kind ${k}`, at);
          return { name, kind, index: s.u32(), offset };
        });
        break;
      case 8:
        m.start = s.u32();
        break;
      case 9:
        m.elements = s.vec(() => element(s));
        break;
      case 10: {
        const codes = s.vec(() => {
          const size = s.u32(),
            offset = s.pos,
            end = s.pos + size;
          if (size > s.end - s.pos) s.fail('function body extends past its section');
          const b = new Reader(bytes, offset, end);
          const locals: ValType[] = [];
          for (const [n, t] of b.vec(() => [b.u32(), b.valtype()] as const)) {
            if (locals.length + n > 50000) b.fail('too many locals', offset);
            for (let k = 0; k < n; k++) locals.push(t);
          }
          const body = b.expr();
          if (!b.eof()) b.fail('function body continues after its final end');
          s.pos = end;
          return { offset, end, locals, body };
        });
        m.codes = codes;
        break;
      }
      case 11:
        m.datas = s.vec(() => {
          const at = s.pos,
            flag = s.u32();
          if (flag > 2) s.fail(`unknown data segment flag ${flag}`, at);
          const memory = flag === 2 ? s.u32() : 0;
          const offset = flag === 1 ? null : s.expr();
          const size = s.u32();
          s.take(size);
          return { mode: flag === 1 ? 'passive' : 'active', memory, offset, size };
        });
        break;
      case 12:
        m.dataCount = s.u32();
        break;
    }
    if (!s.eof()) s.fail(`section ${id} has ${s.end - s.pos} trailing bytes`);
  }
  if (m.funcs.length !== m.codes.length) r.fail('function and code section lengths differ', 0);

  for (const im of m.imports) {
    if (im.kind === 'func') {
      m.funcTypes.push(im.type!);
      m.importedFuncs++;
    }
    if (im.kind === 'global') {
      m.globalTypes.push(im.global!);
      m.importedGlobals++;
    }
  }
  m.funcTypes.push(...m.funcs);
  m.globalTypes.push(...m.globals.map(({ type, mutable }) => ({ type, mutable })));
  for (const t of m.funcTypes) if (!m.types[t]) r.fail(`function type index ${t} out of range`, 0);

  const names = m.customs.find((c) => c.name === 'name');
  if (names) {
    try {
      m.names = functionNames(names.payload);
    } catch {
      /* a malformed name section only loses names */
    }
  }
  return m;
}

function globalMut(s: Reader): boolean {
  const at = s.pos,
    b = s.u8();
  return b === 0 ? false : b === 1 ? true : s.fail('invalid global mutability', at);
}

function element(s: Reader): Element {
  const at = s.pos,
    flag = s.u32();
  if (flag > 7) s.fail(`unknown element segment flag ${flag}`, at);
  const mode = flag & 1 ? (flag & 2 ? 'declarative' : 'passive') : 'active';
  const table = flag === 2 || flag === 6 ? s.u32() : 0;
  const offset = mode === 'active' ? s.expr() : null;
  let ref: ValType = 'funcref';
  if (flag & 4) {
    if (flag !== 4) ref = s.reftype();
    return { mode, table, offset, ref, funcs: [], exprs: s.vec(() => s.expr()) };
  }
  if (flag !== 0) {
    const kat = s.pos;
    if (s.u8() !== 0) s.fail('unknown element kind', kat);
  }
  return { mode, table, offset, ref, funcs: s.vec(() => s.u32()), exprs: [] };
}

/** Function names (subsection 1) of a `name` custom section payload. */
function functionNames(payload: Uint8Array): Map<number, string> {
  const r = new Reader(payload, 0, payload.length);
  const out = new Map<number, string>();
  while (!r.eof()) {
    const id = r.u8(),
      size = r.u32(),
      end = r.pos + size;
    if (id === 1) {
      const sub = new Reader(payload, r.pos, end);
      for (const [i, n] of sub.vec(() => [sub.u32(), sub.name()] as const)) out.set(i, n);
    }
    r.pos = end;
  }
  return out;
}
