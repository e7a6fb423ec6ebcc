// Constant-time checker: a clean kernel passes, one negative control per rule is flagged, taint
// laundered through locals, globals, memory, calls, block results, loop parameters and SIMD
// lanes is still flagged, offsets point at the offending opcode, the decoder round-trips every
// opcode it knows through wabt, and every shipped module passes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkModule, formatViolation, type Rule } from '../src/ct/check.js';
import { decode, DecodeError, ops, opsFC, opsFD, opsFE, type Instr, type Op } from '../src/ct/decode.js';
import { ctSection, parseCtPayload, withCtSection } from '../src/ct/section.js';
import { shipped } from '../src/engine/wasm/all.js';
import { kernels } from '../src/kernels/registry.js';
import { check, expectOnly, mod, wat } from './support/ct-wat.js';

/** Instructions of the function with index f (a defined function). */
function body(bytes: Uint8Array, f: number): Instr[] {
  const m = decode(bytes);
  return m.codes[f - m.importedFuncs].body;
}

// ---------------------------------------------------------------------------------------------

test('clean kernel: secrets through locals, globals, calls, i64.mul, SIMD, swizzle, bitselect', () => {
  const { report } = check(
    `
    (global $acc (mut i64) (i64.const 0))
    (func $mix (param $a i64) (param $b i64) (result i64)
      (i64.xor (i64.mul (local.get $a) (local.get $b)) (i64.rotl (local.get $a) (i64.const 7))))
    (func (export "kernel") (param $ptr i32) (param $n i32) (param $k i64)
      (local $i i32) (local $x i64) (local $v v128)
      ;; public loop counter over n words at a public pointer
      (block $done
        (loop $top
          (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
          (local.set $x (call $mix
            (i64.load (i32.add (local.get $ptr) (i32.shl (local.get $i) (i32.const 3))))
            (local.get $k)))
          (global.set $acc (i64.xor (global.get $acc) (local.get $x)))
          (i64.store offset=8 (i32.add (local.get $ptr) (i32.shl (local.get $i) (i32.const 3))) (local.get $x))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $top)))
      (if (local.get $n) (then (nop)))
      (block (block (br_table 0 1 (local.get $n))))
      ;; swizzle with a secret index vector, bitselect with a secret mask, lane ops
      (local.set $v (i8x16.swizzle (v128.load (local.get $ptr)) (v128.load offset=16 (local.get $ptr))))
      (local.set $v (v128.bitselect (i32x4.add (local.get $v) (local.get $v)) (local.get $v)
                                    (i64x2.splat (local.get $k))))
      (v128.store offset=32 (local.get $ptr)
        (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 (local.get $v) (i64x2.mul (local.get $v) (local.get $v))))
      (i64.store offset=48 (local.get $ptr) (i64x2.extract_lane 1 (local.get $v)))
      (v128.store64_lane offset=64 1 (local.get $ptr) (local.get $v))
      ;; multi-value block carrying secrets; select on a public condition
      local.get $k
      global.get $acc
      block (param i64 i64) (result i64 i64)
        i64.xor
        local.get $k
      end
      i64.add
      local.set $x
      (i64.store offset=56 (local.get $ptr) (select (local.get $x) (local.get $k) (local.get $n)))
      ;; fill with a secret byte at a public address and length
      (memory.fill (local.get $ptr) (i32.wrap_i64 (local.get $x)) (i32.const 16))
      ;; floating point on public values only
      (drop (f64.add (f64.convert_i32_u (local.get $n)) (f64.const 0.5))))`,
    { kernel: [0, 1] },
  );
  assert.deepEqual(report.violations.map(formatViolation), []);
  assert.equal(report.functions, 2);
});

// One negative control per rule.
const controls: { title: string; rule: Rule; count?: number; pub: Record<string, number[]>; text: string }[] = [
  { title: 'br_if on a secret', rule: 'branch', count: 1, pub: { f: [] }, text: `(func (export "f") (param $s i32) (block (br_if 0 (local.get $s))))` },
  {
    title: 'if on a secret',
    rule: 'branch',
    count: 1,
    pub: { f: [] },
    text: `(func (export "f") (param $s i32) (result i32)
             (if (result i32) (local.get $s) (then (i32.const 1)) (else (i32.const 2))))`,
  },
  { title: 'br_table on a secret', rule: 'branch', count: 1, pub: { f: [] }, text: `(func (export "f") (param $s i32) (block (block (br_table 0 1 (local.get $s)))))` },
  {
    title: 'select on a secret condition',
    rule: 'select',
    count: 1,
    pub: { f: [0, 1] },
    text: `(func (export "f") (param $a i32) (param $b i32) (param $s i32) (result i32)
             (select (local.get $a) (local.get $b) (local.get $s)))`,
  },
  {
    title: 'typed select on a secret condition',
    rule: 'select',
    count: 1,
    pub: { f: [0, 1] },
    text: `(func (export "f") (param $a i64) (param $b i64) (param $s i32) (result i64)
             (select (result i64) (local.get $a) (local.get $b) (local.get $s)))`,
  },
  {
    title: 'table lookup indexed by a secret byte (load address)',
    rule: 'address',
    count: 1,
    pub: { sbox: [0] },
    text: `(func (export "sbox") (param $tab i32) (param $x i32) (result i32)
             (i32.load8_u (i32.add (local.get $tab) (i32.and (local.get $x) (i32.const 255)))))`,
  },
  {
    title: 'store at a secret address',
    rule: 'address',
    count: 1,
    pub: { f: [0] },
    text: `(func (export "f") (param $p i32) (param $s i32)
             (i32.store (i32.add (local.get $p) (local.get $s)) (i32.const 0)))`,
  },
  { title: 'v128.load at a secret address', rule: 'address', count: 1, pub: { f: [] }, text: `(func (export "f") (param $s i32) (drop (v128.load (local.get $s))))` },
  { title: 'v128.load8_lane at a secret address', rule: 'address', count: 1, pub: { f: [] }, text: `(func (export "f") (param $s i32) (drop (v128.load8_lane 3 (local.get $s) (v128.const i64x2 0 0))))` },
  {
    title: 'div and rem with a secret operand',
    rule: 'divrem',
    count: 2,
    pub: { f: [0] },
    text: `(func (export "f") (param $p i32) (param $s i64) (result i64)
             (i64.add (i64.div_u (i64.extend_i32_u (local.get $p)) (local.get $s))
                      (i64.rem_s (local.get $s) (i64.const 7))))`,
  },
  {
    title: 'float conversion and arithmetic on a secret',
    rule: 'float',
    count: 2,
    pub: { f: [] },
    text: `(func (export "f") (param $s i32) (result f64)
             (f64.mul (f64.convert_i32_u (local.get $s)) (f64.const 2)))`,
  },
  { title: 'float loaded from memory, then used', rule: 'float', count: 1, pub: { f: [0] }, text: `(func (export "f") (param $p i32) (result f32) (f32.add (f32.load (local.get $p)) (f32.const 1)))` },
  { title: 'SIMD float on a secret', rule: 'float', count: 1, pub: { f: [0] }, text: `(func (export "f") (param $p i32) (result v128) (f32x4.sqrt (v128.load (local.get $p))))` },
  {
    title: 'call_indirect with a secret index',
    rule: 'call_indirect',
    count: 1,
    pub: { f: [] },
    text: `(type $t (func (result i32)))
           (table 2 funcref) (elem (i32.const 0) $a $b)
           (func $a (result i32) (i32.const 1))
           (func $b (result i32) (i32.const 2))
           (func (export "f") (param $s i32) (result i32)
             (call_indirect (type $t) (i32.and (local.get $s) (i32.const 1))))`,
  },
  {
    title: 'memory.copy with a secret length',
    rule: 'address',
    count: 1,
    pub: { f: [0, 1] },
    text: `(func (export "f") (param $d i32) (param $src i32) (param $n i32)
             (memory.copy (local.get $d) (local.get $src) (local.get $n)))`,
  },
  { title: 'missing declaration', rule: 'declaration', count: 1, pub: { f: [] }, text: `(func (export "f")) (func (export "g") (param i32))` },
  { title: 'declaration of a non-existent export and an out-of-range parameter', rule: 'declaration', count: 2, pub: { f: [1], nope: [] }, text: `(func (export "f") (param i32))` },

  // Taint propagation: still flagged.
  {
    title: 'secret laundered through a local',
    rule: 'branch',
    count: 1,
    pub: { f: [] },
    text: `(func (export "f") (param $s i32) (local $t i32)
             (local.set $t (i32.xor (local.get $s) (i32.const 5)))
             (block (br_if 0 (local.get $t))))`,
  },
  {
    title: 'secret laundered through a local written after its use (loop-carried)',
    rule: 'branch',
    count: 1,
    pub: { f: [1] },
    text: `(func (export "f") (param $s i32) (param $n i32) (local $t i32) (local $i i32)
             (block $done (loop $l
               (br_if $done (local.get $t))
               (local.set $t (local.get $s))
               (local.set $i (i32.add (local.get $i) (i32.const 1)))
               (br_if $l (i32.lt_u (local.get $i) (local.get $n))))))`,
  },
  {
    title: 'secret laundered through a global',
    rule: 'branch',
    count: 1,
    pub: { put: [], use: [] },
    text: `(global $g (mut i32) (i32.const 0))
           (func (export "put") (param $s i32) (global.set $g (local.get $s)))
           (func (export "use") (block (br_if 0 (global.get $g))))`,
  },
  { title: 'value loaded from memory at a public address used as a condition', rule: 'branch', count: 1, pub: { f: [0] }, text: `(func (export "f") (param $p i32) (if (i32.load offset=4 (local.get $p)) (then (nop))))` },
  {
    title: "secret passed as a call's parameter into a callee that branches on it",
    rule: 'branch',
    count: 1,
    pub: { f: [0] },
    text: `(func $h (param $x i32) (block (br_if 0 (local.get $x))))
           (func (export "f") (param $p i32) (param $s i32) (call $h (local.get $p)) (call $h (local.get $s)))`,
  },
  {
    title: "secret through a callee's return value",
    rule: 'branch',
    count: 1,
    pub: { f: [0] },
    text: `(func $get (param $p i32) (result i32) (return (i32.load (local.get $p))))
           (func (export "f") (param $p i32) (block (br_if 0 (call $get (local.get $p)))))`,
  },
  {
    title: 'secret through a block result carried by br_if',
    rule: 'branch',
    count: 1,
    pub: { f: [0] },
    text: `(func (export "f") (param $p i32) (param $s i32)
             (block (br_if 0
               (block (result i32)
                 (drop (br_if 0 (local.get $s) (local.get $p)))
                 (i32.const 0)))))`,
  },
  {
    title: 'secret through a block result carried by br',
    rule: 'branch',
    count: 1,
    pub: { f: [] },
    text: `(func (export "f") (param $s i32)
             (if (block (result i32) (br 0 (local.get $s))) (then (nop))))`,
  },
  {
    title: 'secret carried back into a loop parameter',
    rule: 'branch',
    count: 1,
    pub: { f: [0] },
    text: `(func (export "f") (param $p i32) (param $s i32) (result i32)
             i32.const 0
             loop $l (param i32) (result i32)
               if (result i32) (local.get $s) else (i32.const 1) end
               local.get $p
               br_if $l
             end)`,
  },
  {
    title: 'secret through a SIMD lane extract',
    rule: 'branch',
    count: 1,
    pub: { f: [] },
    text: `(func (export "f") (param $s i32)
             (block (br_if 0 (i32x4.extract_lane 2 (i8x16.swizzle (v128.const i64x2 0 0) (i32x4.splat (local.get $s)))))))`,
  },
];

for (const c of controls) {
  test(`flags ${c.rule}: ${c.title}`, () => {
    expectOnly(c.text, c.pub, c.rule, c.count);
  });
}

test('a module without the ctkit.ct section: every exported function violates', () => {
  const bytes = wat(mod(`(func (export "a")) (func (export "b") (param i32))`));
  const r = checkModule('t', bytes, []);
  assert.deepEqual(
    r.violations.map((v) => [v.rule, v.func]),
    [
      ['declaration', 'a'],
      ['declaration', 'b'],
    ],
  );
  // not required (ctkit ct-check on a module without the section): every parameter is secret
  assert.deepEqual(checkModule('t', bytes, [], { requireDeclarations: false }).violations, []);
  const branchy = wat(mod(`(func (export "b") (param i32) (if (local.get 0) (then nop)))`));
  assert.deepEqual(
    checkModule('t', branchy, [], { requireDeclarations: false }).violations.map((v) => v.rule),
    ['branch'],
  );
  // declarations given as options replace the section's for that export
  const declaredSecret = withCtSection(branchy, { b: [] });
  assert.deepEqual(
    checkModule('t', declaredSecret, []).violations.map((v) => v.rule),
    ['branch'],
  );
  assert.deepEqual(checkModule('t', declaredSecret, [], { public: { b: [0] } }).violations, []);
});

test('the violation offset is the offending opcode byte; formatViolation names module, function, offset, rule', () => {
  const { report, bytes } = expectOnly(`(func (export "f") (param $s i32) (block (nop) (br_if 0 (local.get $s))))`, { f: [] }, 'branch', 1);
  const v = report.violations[0];
  const brIf = body(bytes, 0).find((i) => i.name === 'br_if')!;
  assert.equal(v.offset, brIf.offset);
  assert.equal(bytes[v.offset], 0x0d);
  assert.equal(formatViolation(v), `t: func f (#0) @0x${v.offset.toString(16)}: secret value reaches br_if condition [branch]`);

  // A prefixed opcode: the offset is the 0xFD prefix byte.
  const simd = expectOnly(`(func (export "g") (param $s i32) (drop (v128.load offset=0 (local.get $s))))`, { g: [] }, 'address', 1);
  const sv = simd.report.violations[0];
  assert.equal(simd.bytes[sv.offset], 0xfd);
  assert.equal(body(simd.bytes, 0).find((i) => i.offset === sv.offset)?.name, 'v128.load');
  assert.match(formatViolation(sv), /^t: func g \(#0\) @0x[0-9a-f]+: secret value reaches v128\.load address \[address\]$/);

  // A violation in an internal function is named from the name section.
  const callee = expectOnly(
    `(func $helper (param $x i32) (result i32) (i32.div_u (i32.const 1) (local.get $x)))
    (func (export "f") (param $s i32) (result i32) (call $helper (local.get $s)))`,
    { f: [] },
    'divrem',
    1,
  );
  assert.equal(callee.report.violations[0].func, 'helper');
  assert.equal(callee.report.violations[0].index, 0);
});

test('variable-time declarations: an export whose violations are reached only from itself is exempt and listed with its reason', () => {
  const bytes = withCtSection(wat(mod(`(func (export "verify") (param $p i32) (if (i32.load (local.get $p)) (then (nop))))`)), { verify: [0] });
  const r = checkModule('t', bytes, [{ module: 't', kind: 'export', func: 'verify', reason: 'handles only public data' }]);
  assert.deepEqual(r.violations, []);
  assert.deepEqual(r.exempt, [{ func: 'verify', reason: 'handles only public data', via: ['verify'] }]);
  assert.deepEqual(r.declared, [{ func: 'verify', kind: 'export', reason: 'handles only public data', covers: ['verify'] }]);
  assert.equal(r.functions, 0);
  // a declaration for another module does not apply; one naming no export is itself a violation
  assert.deepEqual(
    checkModule('t', bytes, [{ module: 'u', kind: 'export', func: 'verify', reason: 'x' }]).violations.map((v) => v.rule),
    ['branch'],
  );
  const stale = checkModule('t', bytes, [{ module: 't', kind: 'export', func: 'gone', reason: 'x' }]);
  assert.deepEqual(
    stale.violations.map((v) => v.rule),
    ['declaration', 'branch'],
  );
  assert.match(formatViolation(stale.violations[0]), /variable-time declaration names "gone", which is not an exported function/);
});

test('ctSection: canonical bytes with id 0, size, name and JSON payload', () => {
  const s = ctSection({ b: [2, 0, 2], a: [] });
  const json = '{"public":{"a":[],"b":[0,2]}}';
  assert.equal(s[0], 0);
  assert.equal(s[1], 1 + 8 + json.length);
  assert.equal(new TextDecoder().decode(s.subarray(2)), '\x08ctkit.ct' + json);
  assert.throws(() => ctSection({ f: [-1] }), RangeError);
  const m = decode(withCtSection(wat('(module)'), { a: [] }));
  assert.equal(m.customs.at(-1)?.name, 'ctkit.ct');
  // the optional variable-time keys: written sorted, only when non-empty, each with a reason
  assert.deepEqual(ctSection({ a: [] }, {}, {}), ctSection({ a: [] }));
  const vt = new TextDecoder().decode(ctSection({ a: [] }, { z: 'r1', b: 'r2' }, { h: 'r3' }).subarray(11));
  assert.equal(vt, '{"public":{"a":[]},"vartime":{"b":"r2","z":"r1"},"helpers":{"h":"r3"}}');
  assert.throws(() => ctSection({ a: [] }, { b: '' }), RangeError);
  const enc = (x: unknown) => new TextEncoder().encode(JSON.stringify(x));
  const parsed = parseCtPayload(enc({ public: { a: [1] }, vartime: { b: 'why' } }));
  assert.ok(typeof parsed !== 'string');
  assert.deepEqual([[...parsed.public], [...parsed.vartime], [...parsed.helpers]], [[['a', [1]]], [['b', 'why']], []]);
  assert.match(parseCtPayload(enc({ public: {}, vartime: { b: 3 } })) as string, /"b" has no reason/);
  assert.match(parseCtPayload(enc({ public: {}, vartme: {} })) as string, /unknown key\(s\) "vartme"/);
  assert.match(parseCtPayload(enc([])) as string, /not a JSON object/);
});

// ---------------------------------------------------------------------------------------------
// Decoder: every opcode in the tables, assembled by wabt, decodes to the same name, and printing
// the decoded instructions (name + immediates) back to text reassembles to identical bytes.

function sample(op: Op): string {
  const n = op.name;
  switch (op.imm) {
    case 'none':
      return n;
    case 'memarg':
      return n.includes('atomic') ? `${n} offset=3` : `${n} offset=3 align=1`; // atomics: natural alignment
    case 'memarg_lane':
      return `${n} offset=5 align=1 1`;
    case 'lane':
      return `${n} 1`;
    case 'v128':
      return `${n} i32x4 1 -2 3 0x7fffffff`;
    case 'shuffle':
      return `${n} 0 17 2 19 4 21 6 23 8 25 10 27 12 29 14 31`;
    case 'i32':
      return `${n} -7`;
    case 'i64':
      return `${n} -123456789012`;
    case 'f32':
      return `${n} 1.5`;
    case 'f64':
      return `${n} -2.25`;
    case 'local':
    case 'global':
    case 'func':
    case 'table':
    case 'data':
    case 'elem':
      return `${n} 0`;
    case 'memory':
    case 'memory2':
    case 'fence':
      return n;
    case 'memory_init':
      return `${n} 0`;
    case 'table_init':
    case 'table2':
      return `${n} 0 0`;
    case 'select_t':
      return `${n} (result i64)`;
    case 'reftype':
      return `${n} extern`;
    default:
      throw new Error(`no sample for ${n} (${op.imm})`);
  }
}

function print(i: Instr): string {
  const n = i.name;
  const f = (k: 4 | 8) => {
    const dv = new DataView(i.bytes!.buffer, i.bytes!.byteOffset, k);
    return String(k === 4 ? dv.getFloat32(0, true) : dv.getFloat64(0, true));
  };
  switch (i.op.imm) {
    case 'none':
    case 'memory':
    case 'memory2':
    case 'fence':
      return n;
    case 'blocktype': {
      const bt = i.blockType;
      return bt === null ? n : typeof bt === 'number' ? `${n} (type ${bt})` : `${n} (result ${bt})`;
    }
    case 'label':
    case 'func':
    case 'local':
    case 'global':
    case 'table':
    case 'data':
    case 'elem':
    case 'memory_init':
      return `${n} ${i.index}`;
    case 'br_table':
      return `${n} ${i.labels!.join(' ')}`;
    case 'call_indirect':
      return `${n} ${i.index2} (type ${i.index})`;
    case 'table_init':
    case 'table2':
      return `${n} ${i.index} ${i.index2}`;
    case 'memarg':
      return `${n} offset=${i.memarg!.offset} align=${2 ** i.memarg!.align}`;
    case 'memarg_lane':
      return `${n} offset=${i.memarg!.offset} align=${2 ** i.memarg!.align} ${i.lane}`;
    case 'lane':
      return `${n} ${i.lane}`;
    case 'i32':
    case 'i64':
      return `${n} ${i.value}`;
    case 'f32':
      return `${n} ${f(4)}`;
    case 'f64':
      return `${n} ${f(8)}`;
    case 'v128':
      return `${n} i8x16 ${[...i.bytes!].join(' ')}`;
    case 'shuffle':
      return `${n} ${[...i.bytes!].join(' ')}`;
    case 'select_t':
      return `${n} (result ${i.types!.join(' ')})`;
    case 'reftype':
      return `${n} ${i.types![0] === 'funcref' ? 'func' : 'extern'}`;
  }
}

test('decoder: every opcode round-trips through wabt (SIMD, 0xFC, atomics, MVP)', () => {
  const header = `(type (func (param i32) (result i32)))
    (memory 1) (table 1 funcref) (global (mut i32) (i32.const 0))
    (data "ab") (elem func 0)`;
  const flat = [...ops.values(), ...opsFC.values(), ...opsFD.values(), ...opsFE.values()].filter((op) => op.pop >= 0);
  const control = `block (result i32) loop (type 0) if (type 0) br 1 else br_if 2 end br_table 0 1 2 end end
    block if nop end end call 0 call_indirect 0 (type 0) return_call 0 return_call_indirect 0 (type 0)
    return unreachable`;
  const text = (instrs: string) => `(module ${header} (func (type 0) ${instrs}))`;
  const src = control + '\n' + flat.map(sample).join('\n');
  const bytes = wat(text(src), false);
  const decoded = body(bytes, 0).slice(0, -1); // without the function's final end

  const controlNames = ['block', 'loop', 'if', 'br', 'else', 'br_if', 'end', 'br_table', 'end', 'end', 'block', 'if', 'nop', 'end', 'end', 'call', 'call_indirect', 'return_call', 'return_call_indirect', 'return', 'unreachable'];
  assert.deepEqual(
    decoded.map((i) => i.name),
    [...controlNames, ...flat.map((o) => o.name)],
  );
  // Instructions tile the body: each starts where the previous ended.
  decoded.forEach((i, k) => {
    if (k) assert.equal(i.offset, decoded[k - 1].end);
  });

  const again = wat(text(decoded.map(print).join('\n')), false);
  assert.deepEqual(again, bytes);
  console.log(`decoder round-trip: ${decoded.length} instructions (${opsFD.size} SIMD opcodes, ${opsFC.size} 0xFC, ${opsFE.size} atomics)`);
  assert.equal(opsFD.size, 236);
});

// The operand and result counts in the opcode tables drive the checker's stack simulation.
// Oracle: the engine's validator. For each opcode (its bytes as wabt encoded them), find the one
// number of operands (of any types) and results for which a function body validates.
const leb = (n: number): number[] => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, ...leb(n >>> 7)]);
const vec = (items: number[][]): number[] => [...leb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...leb(body.length), ...body];
function oneFunctionModule(code: number[]): Uint8Array<ArrayBuffer> {
  const body = [...vec([[1, 0x7f]]), ...code, 0x0b]; // one i32 local
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0,
    ...section(1, vec([[0x60, 0, 0]])), // type 0: [] -> []
    ...section(3, vec([[0]])),
    ...section(4, vec([[0x70, 0, 1]])), // table 0: funcref, min 1
    ...section(5, vec([[0x03, 1, 1]])), // memory 0: shared, 1 page
    ...section(6, vec([[0x7f, 1, 0x41, 0, 0x0b]])), // global 0: mut i32
    ...section(9, vec([[1, 0, ...vec([[0]])]])), // element 0: passive, func 0
    ...section(12, [1]), // data count
    ...section(10, vec([[...leb(body.length), ...body]])),
    ...section(11, vec([[1, ...leb(1), 0x61]])), // data 0: passive
  ]);
}
const operand: number[][] = [
  [0x41, 0],
  [0x42, 0],
  [0x43, 0, 0, 0, 0],
  [0x44, 0, 0, 0, 0, 0, 0, 0, 0],
  [0xfd, 0x0c, ...Array(16).fill(0)],
  [0xd0, 0x70],
];
function trueArity(instr: number[]): [number, number] | null {
  const combos = (k: number): number[][][] => (k === 0 ? [[]] : combos(k - 1).flatMap((c) => operand.map((o) => [...c, o])));
  for (let k = 0; k <= 3; k++) {
    for (const c of combos(k)) {
      for (const results of [0, 1]) {
        if (WebAssembly.validate(oneFunctionModule([...c.flat(), ...instr, ...Array(results).fill(0x1a)]))) return [k, results];
      }
    }
  }
  return null;
}

test('decoder: operand/result counts of every fixed-arity opcode match the engine validator', () => {
  const flat = [...ops.values(), ...opsFC.values(), ...opsFD.values(), ...opsFE.values()].filter((op) => op.pop >= 0);
  const bytes = wat(`(module (memory 1) (func ${flat.map(sample).join('\n')}))`, false);
  const decoded = body(bytes, 0).slice(0, -1);
  // every table entry is checked (an empty decode would pass the loop below vacuously)
  assert.ok(flat.length > 0);
  assert.deepEqual(
    decoded.map((i) => i.name),
    flat.map((o) => o.name),
  );
  const wrong: string[] = [];
  for (const i of decoded) {
    const got = trueArity([...bytes.subarray(i.offset, i.end)]);
    if (!got || got[0] !== i.op.pop || got[1] !== i.op.push) wrong.push(`${i.name}: table ${i.op.pop}->${i.op.push}, engine ${got}`);
  }
  assert.deepEqual(wrong, []);
});

test('decoder: an unknown opcode is an error naming its offset', () => {
  const bytes = wat('(module (func nop))');
  const nop = body(bytes, 0)[0];
  const bad = bytes.slice();
  bad[nop.offset] = 0x06; // try (exception handling): not WebAssembly 2.0
  assert.throws(
    () => decode(bad),
    (e: unknown) => e instanceof DecodeError && e.offset === nop.offset && e.message.includes(`@0x${nop.offset.toString(16)}`),
  );
  const badSimd = wat('(module (func (drop (i16x8.avgr_u (v128.const i64x2 0 0) (v128.const i64x2 0 0)))))');
  const avgr = body(badSimd, 0).find((i) => i.name === 'i16x8.avgr_u')!;
  const patched = badSimd.slice();
  patched[avgr.offset + 1] = 0x9a; // reserved SIMD opcode 0x9a (LEB 0x9a 0x01)
  assert.throws(() => decode(patched), /unknown opcode 0xfd 154/);
});

// ---------------------------------------------------------------------------------------------

test('every shipped module passes the constant-time check', () => {
  const names = Object.keys(shipped);
  // the loop below must not pass by checking nothing: every registered module is shipped and checked
  const registered = kernels.flatMap((k) => [k.name, ...(k.targets?.includes('wasm') ? [`${k.name}_wasm`] : [])]);
  assert.deepEqual([...names].sort(), registered.sort(), 'shipped (all.ts) and the registry disagree');
  assert.ok(names.length > 0, 'no shipped module to check');
  for (const name of names) {
    const r = checkModule(name, shipped[name]());
    assert.deepEqual(r.violations.map(formatViolation), [], name);
  }
  console.log(`constant-time check: ${names.length} shipped module(s) checked${names.length ? ': ' + names.join(', ') : ''}`);
});
