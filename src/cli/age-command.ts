// The `ctkit age` and `ctkit age-keygen` commands: their usage and arguments. The format code
// (age.ts: X25519, HKDF, HMAC-SHA-256 and the ChaCha20-Poly1305 payload) is imported when one of
// them runs, so the other commands start without those modules.

import type { ParseArgsConfig } from 'node:util';
import { UsageError } from './errors.js';
import { parseJobs } from './files.js';

const age = () => import('./age.js');

type Values = Record<string, string | boolean | string[] | undefined>;
const list = (v: unknown) => (Array.isArray(v) ? (v as string[]) : []);

export const ageCommand = {
  summary: 'encrypt to age recipients, or decrypt age files (age-encryption.org/v1, X25519)',
  usage: 'ctkit age [-r age1…]… [-R file]… [-a] [-o out] [in] | ctkit age -d -i identity… [-o out] [in]',
  details: [
    '  -r, --recipient <age1…>      encrypt to this X25519 recipient (repeatable)',
    '  -R, --recipients-file <f>    encrypt to every recipient in f (one a line, # comments)',
    '  -e, --encrypt                encrypt (the default)',
    '  -a, --armor                  write the ASCII armor (-----BEGIN AGE ENCRYPTED FILE-----)',
    '  -d, --decrypt                decrypt (armored input is detected)',
    '  -i, --identity <file>        identity file from age-keygen or ctkit age-keygen (repeatable)',
    '  -o, --output <file>          output (default stdout); written under a temporary name (mode',
    '                               0600) and renamed into place when complete',
    '  -f, --force                  replace an existing output file',
    '  -j, --jobs <n>               worker threads (default: every core for large files)',
    '  in                           input file (default stdin)',
    '',
    "The files are the age tool's: `age -d` decrypts what ctkit age writes and the reverse.",
    'With -o a failed decryption leaves no file; to stdout plaintext goes out chunk by chunk as it',
    'authenticates, and a later failure is exit status 1.',
    '',
    'examples:',
    '  ctkit age-keygen -o key.txt',
    '  ctkit age -r age1… -o report.pdf.age report.pdf',
    '  ctkit age -d -i key.txt -o report.pdf report.pdf.age',
  ].join('\n'),
  options: {
    encrypt: { type: 'boolean', short: 'e' },
    decrypt: { type: 'boolean', short: 'd' },
    recipient: { type: 'string', short: 'r', multiple: true },
    'recipients-file': { type: 'string', short: 'R', multiple: true },
    identity: { type: 'string', short: 'i', multiple: true },
    armor: { type: 'boolean', short: 'a' },
    output: { type: 'string', short: 'o' },
    force: { type: 'boolean', short: 'f' },
    jobs: { type: 'string', short: 'j' },
  } satisfies NonNullable<ParseArgsConfig['options']>,
  maxPositionals: 1,
  async run(v: Values, p: string[]): Promise<void> {
    const jobs = parseJobs(v.jobs as string | undefined);
    const common = { input: p[0], output: v.output as string | undefined, force: v.force === true, jobs };
    if (v.decrypt === true) {
      if (v.encrypt === true) throw new UsageError('-e and -d do not go together');
      if (list(v.recipient).length || list(v['recipients-file']).length) throw new UsageError('-r and -R are for encryption; -d decrypts with -i');
      if (v.armor === true) throw new UsageError('-a is for encryption (armored input is detected when decrypting)');
      await (await age()).ageDecrypt({ identityFiles: list(v.identity), ...common });
      return;
    }
    if (list(v.identity).length) throw new UsageError('-i is for decryption (-d); encrypt with -r or -R');
    await (await age()).ageEncrypt({ recipients: list(v.recipient), recipientFiles: list(v['recipients-file']), armor: v.armor === true, ...common });
  },
};

export const ageKeygenCommand = {
  summary: 'make an age X25519 identity file (age-keygen compatible)',
  usage: 'ctkit age-keygen [-o file] | ctkit age-keygen -y [identity file]',
  details: [
    '  -o, --output <file>   write the identity there (mode 0600; never overwritten) and print the',
    '                        public key on stderr; default: stdout',
    '  -y                    print the recipient (age1…) of each identity in the file',
    '',
    'The file has the "# created:" and "# public key:" lines age-keygen writes, then the',
    'AGE-SECRET-KEY-1… line; age reads it with -i.',
    '',
    'examples:',
    '  ctkit age-keygen -o key.txt',
    '  ctkit age-keygen -y key.txt',
  ].join('\n'),
  options: { output: { type: 'string', short: 'o' }, y: { type: 'boolean', short: 'y' } } satisfies NonNullable<ParseArgsConfig['options']>,
  maxPositionals: 1,
  async run(v: Values, p: string[]): Promise<void> {
    if (v.y === true) {
      if (typeof v.output === 'string') throw new UsageError('-y prints to stdout; it takes no -o');
      if (p.length !== 1) throw new UsageError('-y needs the identity file');
      await (await age()).ageKeygenConvert(p[0]);
      return;
    }
    if (p.length) throw new UsageError(`too many arguments: ${p[0]}`); // (at most one: maxPositionals)
    await (await age()).ageKeygen(v.output as string | undefined);
  },
};
