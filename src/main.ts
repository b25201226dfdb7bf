import { ConfigError } from './config.ts';
import { parse, UsageError, type Command } from './cli/command.ts';
import { keysCreate, keysList, keysRevoke } from './cli/keys.ts';
import { clientsCreate, clientsDelete, clientsList, clientsRotate } from './cli/clients.ts';
import { profilesCreate } from './cli/profiles.ts';
import { migrate, serve, worker } from './cli/service.ts';
import { DataDirInUseError } from './db/index.ts';

const commands: Command[] = [serve, worker, migrate, keysCreate, keysList, keysRevoke, clientsCreate, clientsList, clientsRotate, clientsDelete, profilesCreate];

function overview(): string {
  return ['usage: concierge <command> [options]', '', ...commands.map((c) => `  ${c.name.padEnd(18)} ${c.summary}`), '', 'concierge <command> --help shows a command\'s options.'].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const command = commands.find((c) => {
    const words = c.name.split(' ');
    return words.every((w, i) => argv[i] === w);
  });
  if (!command) {
    const asked = argv[0] === undefined || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help';
    (asked ? process.stdout : process.stderr).write(`${asked ? '' : `unknown command: ${argv.join(' ')}\n\n`}${overview()}\n`);
    return asked ? 0 : 2;
  }
  const rest = argv.slice(command.name.split(' ').length);
  let args;
  try {
    args = parse(command, rest);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\nusage: ${command.usage}\n`);
    return 2;
  }
  if (args.values.help) {
    process.stdout.write(`${command.summary}\n\nusage: ${command.usage}\n`);
    return 0;
  }
  return (await command.run(args)) ?? 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof DataDirInUseError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`concierge: ${(error as Error).message ?? String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
