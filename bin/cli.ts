/**
 * The `tickscope` command line: init, demo, import, call, serve, gateway, clients, start. Each command prints what it
 * did; errors print one line naming what to fix and exit with status 1 (2 for usage errors).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { asTickscopeError, TickscopeError } from '../engine/core/errors.js';
import { COMMANDS, type Command } from './commands.js';

function usage(): string {
  const lines = ['usage: tickscope <command> [options]', '', 'commands:'];
  for (const c of COMMANDS) lines.push(`  ${c.usage.padEnd(60)} ${c.summary}`);
  lines.push('', 'Run `tickscope <command> --help` for its options; docs/cli.md has them all.');
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name ? 0 : 2;
  }
  const cmd: Command | undefined = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    console.error(`tickscope: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return 2;
  }
  const config: ParseArgsConfig = {
    args: rest,
    options: { ...cmd.options, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
    tokens: true,
  };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(config);
  } catch (e) {
    console.error(`tickscope ${name}: ${(e as Error).message}\nusage: tickscope ${cmd.usage}`);
    return 2;
  }
  if (parsed.values['help']) {
    console.log(`usage: tickscope ${cmd.usage}\n\n${cmd.summary}\n\n${cmd.help}`);
    return 0;
  }
  try {
    return await cmd.run(parsed.values as Record<string, unknown>, parsed.positionals, parsed.tokens);
  } catch (e) {
    const err = asTickscopeError(e);
    console.error(`tickscope ${name}: ${err.message}`);
    if (!(e instanceof TickscopeError) && process.env['TICKSCOPE_DEBUG']) console.error(e);
    // a command that failed part way (a port in use after the workers started) must not stay up
    // on what it had opened: the error is said, the process ends
    process.exit(1);
  }
}

// A reader that goes away (`tickscope call ... | head`) ends the output: stop quietly, exit 0.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
