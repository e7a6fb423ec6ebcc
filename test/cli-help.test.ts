// The ctkit command's help (src/cli/commands.ts) against what the commands accept, and against
// the reference in docs/cli.md:
// - every option a command accepts is in its help (`-o, --out`; a one-letter name as `-y`), and
//   every option its help lists is one it accepts;
// - every example in a help runs the command it names with options that command accepts;
// - docs/cli.md is the help as the tool prints it (`npm run docs:cli` writes it), checked here
//   against one run of the real command too.
// In-process and quick: under `npm run test:mutation -- src/cli` a mutant of the help text or the
// command table fails here before the slow CLI tests run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { COMMANDS, VERSION, cliReference, commandHelp, mainHelp } from '../src/cli/commands.js';
import { ctkitSync } from './support/cli.js';

const names = Object.keys(COMMANDS);

test('the commands are the ones the README and docs/cli.md name', () => {
  assert.deepEqual(names, ['keygen', 'pubkey', 'ecdh', 'seal', 'open', 'age', 'age-keygen', 'sign', 'verify', 'info', 'bench', 'ct-check']);
  assert.match(VERSION, /^\d+\.\d+\.\d+/);
});

test('every option a command accepts is in its help, and every option its help lists is accepted', () => {
  for (const [name, c] of Object.entries(COMMANDS)) {
    const help = commandHelp(c);
    const accepted = new Set<string>();
    for (const [long, o] of Object.entries(c.options)) {
      if (long.length === 1) {
        accepted.add(`-${long}`);
        assert.match(help, new RegExp(`^  -${long}\\b`, 'm'), `${name}: -${long} is not in its help`);
        continue;
      }
      accepted.add(`--${long}`);
      const shown = o.short ? `-${o.short}, --${long}` : `--${long}`;
      if (o.short) accepted.add(`-${o.short}`);
      assert.ok(help.includes(`\n  ${shown} `) || help.includes(`\n  ${shown}\n`), `${name}: '${shown}' does not start a line of its help`);
    }
    // the option lines of the help: two spaces, then -x, --name or --name
    for (const m of c.details.matchAll(/^ {2}(-\w)?(?:, )?(--[\w-]+)?/gm)) {
      for (const flag of [m[1], m[2]]) if (flag) assert.ok(accepted.has(flag), `${name}: its help lists ${flag}, which it does not accept`);
    }
  }
});

/** The `ctkit …` commands of an example line: split at pipes and &&, without redirections. */
function exampleCommands(line: string): string[][] {
  const out: string[][] = [];
  for (const part of line.split(/\|\||&&|\|/)) {
    const words = part.trim().split(/\s+/);
    const kept: string[] = [];
    for (let i = 0; i < words.length; i++) {
      if (words[i] === '>' || words[i] === '<') i++;
      else kept.push(words[i]);
    }
    if (kept[0] === 'ctkit') out.push(kept.slice(1));
  }
  return out;
}

test('every example in a help is a command line that command accepts', () => {
  let examples = 0;
  for (const [name, c] of Object.entries(COMMANDS)) {
    const at = c.details.indexOf('\nexamples:\n');
    assert.equal(at < 0, name === 'info', `${name}: examples`);
    if (at < 0) continue;
    const lines = c.details.slice(at + '\nexamples:\n'.length).split('\n');
    assert.ok(lines.length > 0 && lines.every((l) => l.startsWith('  ')), `${name}: its examples are indented lines`);
    for (const line of lines) {
      const runs = exampleCommands(line);
      for (const [cmd, ...args] of runs) {
        const target = COMMANDS[cmd];
        assert.ok(target, `${name}: example ${JSON.stringify(line)} runs an unknown command ${cmd}`);
        const { positionals } = parseArgs({ args, options: target.options, allowPositionals: true, strict: true });
        assert.ok(positionals.length <= target.maxPositionals, `${name}: example ${JSON.stringify(line)} has too many arguments`);
        examples++;
      }
    }
  }
  assert.equal(examples, 23); // counted by hand: keygen 3, pubkey 2, ecdh 1, seal 2, open 2, age 3, age-keygen 2, sign 1, verify 2, bench 2, ct-check 3
  // the splitter has teeth: a pipe, && and redirections
  assert.deepEqual(exampleCommands('tar c d | ctkit seal -k k > o && ctkit open -k k < o'), [
    ['seal', '-k', 'k'],
    ['open', '-k', 'k'],
  ]);
});

test('docs/cli.md is the help the tool prints (npm run docs:cli rewrites it)', () => {
  const doc = readFileSync(new URL('../docs/cli.md', import.meta.url), 'utf8');
  assert.equal(doc, cliReference(), 'docs/cli.md is out of date: run `npm run docs:cli`');
  for (const [name, c] of Object.entries(COMMANDS)) assert.ok(doc.includes(`\n## ctkit ${name}\n\n\`\`\`text\n${commandHelp(c)}\n\`\`\`\n`), name);
  assert.ok(doc.includes(`\`\`\`text\n${mainHelp()}\n\`\`\`\n`));
});

test('the command prints that help: ctkit --help, help <command>, <command> --help and -h', () => {
  const main = ctkitSync(['--help']);
  assert.equal(main.status, 0, main.stderr);
  assert.equal(String(main.stdout), mainHelp() + '\n');
  for (const args of [
    ['help', 'age'],
    ['age', '--help'],
    ['age', '-d', '-h'],
  ]) {
    const r = ctkitSync(args);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(String(r.stdout), commandHelp(COMMANDS.age) + '\n', args.join(' '));
  }
});
