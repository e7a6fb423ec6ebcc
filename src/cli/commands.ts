// The commands of the ctkit tool: each one's summary, usage, options, help text and what it runs;
// run.ts parses a command line against them. docs/cli.md is what their help prints
// (`npm run docs:cli` rewrites it; test/cli-help.test.ts holds the two together).

import type { ParseArgsConfig } from 'node:util';
import { readFileSync } from 'node:fs';
import { keygenAead, openFile, parseJobs, sealFile } from './files.js';
import { UsageError } from './errors.js';
import { runBench } from './bench.js';
import { ctCheckCommand } from './ct-check.js';
import { ageCommand, ageKeygenCommand } from './age-command.js';
import { infoLines } from './info.js';
import { CURVES } from '../curves/params.js';
import { ALGORITHMS } from '../stream/format.js';

export const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

export interface Command {
  summary: string;
  usage: string;
  details: string;
  options: NonNullable<ParseArgsConfig['options']>;
  maxPositionals: number;
  run(values: Record<string, string | boolean | string[] | undefined>, positionals: string[]): Promise<void>;
}

/** What `ctkit bench` runs without a filter: one or two headline rows per family. */
const HEADLINE =
  '^(ghash/(64|16384)|poly1305/16384|(aes-128-gcm|aes-256-gcm|chacha20-poly1305)/(tls-seal/239|encrypt/16384)|' +
  'aes-256-gcm-siv/encrypt/16384|sm4-gcm/encrypt/16384|sm4-ctr/16384|sha256/16384|ecdh_p256|ec_p256_public_key|ecdsa_p256_(sign|verify))$';

// the curve commands import keys.js and sign.js (every curve module) when they run: seal, open
// and the rest start without them
const CURVE_NAMES = Object.values(CURVES)
  .map((c) => c.name)
  .join(', ');
const keys = () => import('./keys.js');
const sign = () => import('./sign.js');

const AEAD_NAMES = ALGORITHMS.map((a) => a.name).join(', ');

export const COMMANDS: Record<string, Command> = {
  keygen: {
    summary: 'make a fresh key file (symmetric, or an EC private key)',
    usage: 'ctkit keygen (--aead <alg> | --curve <name> [--format pkcs8|sec1|jwk|raw]) -o <keyfile>',
    details: [
      `  --aead <alg>       symmetric key (JWK) for ${AEAD_NAMES}`,
      `  --curve <name>     EC private key on ${CURVE_NAMES}`,
      '                     (aliases: P-256, prime256v1, secp384r1, …)',
      '  --format <f>       EC key encoding: pkcs8 (PEM, default), sec1 (EC PRIVATE KEY PEM), jwk, raw (hex)',
      '  -o, --out <file>   where to write the key (mode 0600; never overwritten); EC keys may go to stdout',
      '',
      'examples:',
      '  ctkit keygen --aead chacha20-poly1305 -o secret.key',
      '  ctkit keygen --curve p256 -o alice.pem',
      '  ctkit keygen --curve secp256k1 --format jwk -o k1.jwk',
    ].join('\n'),
    options: { aead: { type: 'string' }, curve: { type: 'string' }, format: { type: 'string' }, out: { type: 'string', short: 'o' } },
    maxPositionals: 0,
    async run(v) {
      if (typeof v.aead === 'string' && typeof v.curve === 'string') throw new UsageError('keygen takes --aead or --curve, not both');
      if (typeof v.curve === 'string') {
        await (await keys()).keygenCurve(v.curve, v.format as string | undefined, v.out as string | undefined);
        return;
      }
      if (typeof v.aead !== 'string') throw new UsageError('keygen needs --aead <alg> or --curve <name>');
      if (typeof v.format === 'string') throw new UsageError('--format applies to --curve keys only');
      if (typeof v.out !== 'string') throw new UsageError('keygen --aead needs -o <keyfile>');
      await keygenAead(v.aead, v.out);
    },
  },
  pubkey: {
    summary: 'print the public key of a private key (or convert a public key)',
    usage: 'ctkit pubkey <keyfile> [--format spki|jwk|raw|compressed] [--curve <name>] [-o out]',
    details: [
      '  keyfile            private key (PKCS#8, SEC 1, JWK; PEM or DER) or public key (SPKI, JWK, SEC 1)',
      '  --format <f>       spki (PEM, default), jwk, raw (SEC 1 uncompressed, hex), compressed (SEC 1, hex)',
      '  --curve <name>     needed only for raw keys, which do not name their curve',
      '  -o, --out <file>   write the public key there (default: stdout)',
      '',
      'examples:',
      '  ctkit pubkey alice.pem > alice.pub',
      '  ctkit pubkey alice.pem --format compressed',
    ].join('\n'),
    options: { format: { type: 'string' }, curve: { type: 'string' }, out: { type: 'string', short: 'o' } },
    maxPositionals: 1,
    async run(v, p) {
      if (p.length !== 1) throw new UsageError('pubkey needs a key file');
      await (await keys()).pubkey(p[0], v.format as string | undefined, v.curve as string | undefined, v.out as string | undefined);
    },
  },
  ecdh: {
    summary: 'derive the ECDH shared secret of a private key and a peer public key',
    usage: 'ctkit ecdh --key <private> --peer <public> [-o out]',
    details: [
      '  -k, --key <file>   your private key',
      "  --peer <file>      the peer's public key (validated: on the curve, not the point at infinity)",
      '  --curve <name>     needed only for raw keys, which do not name their curve',
      '  -o, --out <file>   write the raw secret there (mode 0600) instead of hex on stdout',
      '',
      'examples:',
      '  ctkit ecdh --key alice.pem --peer bob.pub',
    ].join('\n'),
    options: { key: { type: 'string', short: 'k' }, peer: { type: 'string' }, curve: { type: 'string' }, out: { type: 'string', short: 'o' } },
    maxPositionals: 0,
    async run(v) {
      if (typeof v.key !== 'string') throw new UsageError('ecdh needs --key <private key>');
      if (typeof v.peer !== 'string') throw new UsageError('ecdh needs --peer <public key>');
      await (await keys()).ecdh(v.key, v.peer, v.out as string | undefined, v.curve as string | undefined);
    },
  },
  seal: {
    summary: 'encrypt and authenticate a file or stdin',
    usage: 'ctkit seal --key <keyfile> [-a <alg>] [--jobs N] [in] [-o out [--force]]',
    details: [
      '  -k, --key <file>  key file from `ctkit keygen --aead`',
      `  -a, --alg <alg>   algorithm (default: the key file's): ${AEAD_NAMES}`,
      '  -o, --out <file>  output (default stdout, never a terminal); written under a temporary',
      '                    name (mode 0600) and renamed into place when complete',
      '  -f, --force       replace an existing output file (without it ctkit never overwrites)',
      '  -j, --jobs <n>    worker threads sealing segments in parallel (default: every core)',
      '  in                input file (default stdin)',
      '',
      'Works in constant memory on inputs of any size: 64 KiB segments, each sealed with its own',
      'nonce (random prefix, counter, final flag), so truncation, reordering and splicing are detected.',
      "The format is ctkit/stream's (docs/stream-format.md): the library opens what the CLI seals.",
      '',
      'examples:',
      '  ctkit seal --key secret.key report.pdf -o report.pdf.ctk',
      '  tar c dir | ctkit seal -k secret.key > dir.tar.ctk',
    ].join('\n'),
    options: { key: { type: 'string', short: 'k' }, alg: { type: 'string', short: 'a' }, out: { type: 'string', short: 'o' }, force: { type: 'boolean', short: 'f' }, jobs: { type: 'string', short: 'j' } },
    maxPositionals: 1,
    async run(v, p) {
      if (typeof v.key !== 'string') throw new UsageError('seal needs --key <keyfile>');
      const jobs = parseJobs(v.jobs as string | undefined);
      await sealFile({ keyPath: v.key, alg: v.alg as string | undefined, input: p[0], output: v.out as string | undefined, force: v.force === true, jobs });
    },
  },
  open: {
    summary: 'verify and decrypt a sealed file or stdin',
    usage: 'ctkit open --key <keyfile> [--jobs N] [in] [-o out [--force]]',
    details: [
      '  -k, --key <file>  key file',
      '  -o, --out <file>  output (default stdout)',
      '  -f, --force       replace an existing output file (without it ctkit never overwrites)',
      '  -j, --jobs <n>    worker threads opening segments in parallel (default: every core)',
      '  in                sealed input (default stdin)',
      '',
      'With -o the file appears only when every segment authenticated: it is written under a',
      'temporary name (mode 0600) and renamed. To stdout, plaintext goes out as it authenticates,',
      'segment by segment, never before; when a later segment fails or the file was cut short,',
      'the exit status is 1 and the message says how much authenticated output was written.',
      'Exit status 1 when the file was damaged, truncated, reordered or sealed with another key.',
      '',
      'examples:',
      '  ctkit open --key secret.key report.pdf.ctk -o report.pdf',
      '  ctkit open -k secret.key < dir.tar.ctk | tar x',
    ].join('\n'),
    options: { key: { type: 'string', short: 'k' }, out: { type: 'string', short: 'o' }, force: { type: 'boolean', short: 'f' }, jobs: { type: 'string', short: 'j' } },
    maxPositionals: 1,
    async run(v, p) {
      if (typeof v.key !== 'string') throw new UsageError('open needs --key <keyfile>');
      const jobs = parseJobs(v.jobs as string | undefined);
      await openFile({ keyPath: v.key, input: p[0], output: v.out as string | undefined, force: v.force === true, jobs });
    },
  },
  age: ageCommand,
  'age-keygen': ageKeygenCommand,
  sign: {
    summary: 'ECDSA-sign a file (or stdin) with an EC private key',
    usage: 'ctkit sign --key <private> [--format der|p1363] [--hash sha256|…] [file] [-o sig]',
    details: [
      '  -k, --key <file>   private key (PKCS#8, SEC 1, JWK; PEM or DER; made by ctkit or openssl)',
      '  --format <f>       der (ASN.1, default, as openssl dgst writes) or p1363 (r ‖ s, fixed length)',
      "  --hash <h>         sha224, sha256, sha384, sha512 (default: the curve's: SHA-256 for P-256,",
      '                     secp256k1, brainpoolP256r1; SHA-224 P-224; SHA-384 P-384, brainpoolP384r1; SHA-512 P-521, brainpoolP512r1);',
      '                     openssl dgst hashes with SHA-256 unless told: name the hash on both sides',
      '  -o, --out <file>   signature file (default: raw bytes on stdout)',
      '',
      'Deterministic signatures (RFC 6979). The file is hashed as it streams in.',
      '',
      'examples:',
      '  ctkit sign --key alice.pem --hash sha256 release.tar > release.tar.sig',
      '  openssl dgst -sha256 -verify alice.pub -signature release.tar.sig release.tar',
    ].join('\n'),
    options: { key: { type: 'string', short: 'k' }, format: { type: 'string' }, hash: { type: 'string' }, out: { type: 'string', short: 'o' } },
    maxPositionals: 1,
    async run(v, p) {
      if (typeof v.key !== 'string') throw new UsageError('sign needs --key <private key>');
      await (await sign()).signFile({ keyPath: v.key, input: p[0], output: v.out as string | undefined, format: v.format as string | undefined, hash: v.hash as string | undefined });
    },
  },
  verify: {
    summary: 'verify an ECDSA signature of a file (or stdin)',
    usage: 'ctkit verify --pub <public> --sig <signature> [--format der|p1363] [--hash …] [file]',
    details: [
      '  --pub <file>       public key (SPKI PEM/DER, JWK, or a private key file)',
      '  --sig <file>       the signature',
      '  --format <f>       der (ASN.1, default) or p1363 (r ‖ s, fixed length), as sign wrote it',
      "  --hash <h>         as for sign (default: the curve's; OpenSSL's dgst default is sha256)",
      '',
      'Prints "Verified OK" and exits 0, or exits 1 when the signature does not verify.',
      '',
      'examples:',
      '  ctkit verify --pub alice.pub --hash sha256 --sig release.tar.sig release.tar',
      '  openssl dgst -sha256 -sign alice.pem release.tar > s && ctkit verify --pub alice.pub --hash sha256 --sig s release.tar',
    ].join('\n'),
    options: { pub: { type: 'string' }, sig: { type: 'string' }, format: { type: 'string' }, hash: { type: 'string' } },
    maxPositionals: 1,
    async run(v, p) {
      if (typeof v.pub !== 'string') throw new UsageError('verify needs --pub <public key>');
      if (typeof v.sig !== 'string') throw new UsageError('verify needs --sig <signature file>');
      await (await sign()).verifyFile({ pubPath: v.pub, sigPath: v.sig, input: p[0], format: v.format as string | undefined, hash: v.hash as string | undefined });
    },
  },
  info: {
    summary: 'print the version and the kernel backend in use (simd, wasm or js)',
    usage: 'ctkit info',
    details: 'CTKIT_BACKEND=simd|wasm|js overrides the probe (the fastest backend the engine runs).',
    options: {},
    maxPositionals: 0,
    async run() {
      process.stdout.write(infoLines(VERSION).join('\n') + '\n');
    },
  },
  bench: {
    summary: "run the library's benchmark tables beside node:crypto and the installed peers",
    usage: 'ctkit bench [filter | --all] [--json] [--base <git-ref>] [--time ms]',
    details: [
      '  filter           regular expression over case names (e.g. ghash, chacha20, ecdh_p256);',
      '                   without one, a headline row or two per family (about 20 s)',
      '  --all            every case of every family (several minutes)',
      '  --json           print [{ case, impl, ns }] instead of tables',
      '  --base <ref>     compare with another git revision (Base / Head / Change)',
      '  --time <ms>      time budget per case and implementation (default 300)',
      '  --impl <name>    only this implementation (repeatable: ctkit, node:crypto, a peer; with',
      '                   --base the default is ctkit)',
      '  --copies <n>     with --base, runs of each side, the fastest median counting (default 3)',
      '',
      'Needs a clone of the repository with its dev dependencies installed (the peers).',
      '',
      'examples:',
      '  ctkit bench ghash',
      '  ctkit bench --base HEAD~1 ghash/16384',
    ].join('\n'),
    options: { all: { type: 'boolean' }, json: { type: 'boolean' }, base: { type: 'string' }, time: { type: 'string' }, copies: { type: 'string' }, impl: { type: 'string', multiple: true } },
    maxPositionals: 1,
    async run(v, p) {
      await runBench(benchArgs(v, p));
    },
  },
  'ct-check': ctCheckCommand,
};

/** `ctkit bench`'s options as the arguments of the harness (bench/run.ts). */
export function benchArgs(v: Record<string, string | boolean | string[] | undefined>, p: string[]): string[] {
  if (v.all && p.length) throw new UsageError('bench takes a filter or --all, not both');
  const args: string[] = p.length ? [...p] : v.all ? [] : [HEADLINE];
  if (v.json) args.push('--json');
  if (typeof v.base === 'string') args.push('--base', v.base);
  if (typeof v.time === 'string') args.push('--time', v.time);
  if (typeof v.copies === 'string') args.push('--copies', v.copies);
  for (const i of (v.impl as string[] | undefined) ?? []) args.push('--impl', i);
  return args;
}

/** The command of that name; undefined for any other word (Object.prototype's names included). */
export function commandNamed(name: string | undefined): Command | undefined {
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

export function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    `ctkit ${VERSION} — constant-time cryptography: AEAD files, keys, signatures, benchmarks`,
    '',
    'usage: ctkit <command> [options]',
    '',
    'commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    "ctkit <command> --help shows a command's options and examples.",
    'exit status: 0 success; 1 failure (authentication, verification, a damaged file, an invalid key);',
    '2 usage error, or a file that cannot be read or written or would be overwritten',
  ].join('\n');
}

export function commandHelp(c: Command): string {
  return [`usage: ${c.usage}`, '', c.summary, '', c.details].join('\n');
}

/** docs/cli.md: the main help, then each command's, as the tool prints them (`npm run docs:cli`). */
export function cliReference(): string {
  const block = (s: string) => ['```text', s, '```', ''];
  return [
    '# The ctkit command',
    '',
    '<!-- Written by `npm run docs:cli` from src/cli/commands.ts; test/cli-help.test.ts checks it. -->',
    '',
    'What `ctkit --help` and `ctkit <command> --help` print.',
    '',
    ...block(mainHelp()),
    ...Object.entries(COMMANDS).flatMap(([name, c]) => [`## ctkit ${name}`, '', ...block(commandHelp(c))]),
  ].join('\n');
}
