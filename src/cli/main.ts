import { ConfigError } from '../config.ts';
import { parse, UsageError, type Command } from './command.ts';
import { keysCreate, keysList, keysRevoke } from './keys.ts';
import { clientsCreate, clientsDelete, clientsList, clientsRotate } from './clients.ts';
import { profilesCreate } from './profiles.ts';
import { providersAdd, providersList, providersRemove } from './providers.ts';
import { webhooksAdd, webhooksList, webhooksRemove } from './webhooks.ts';
import { migrate, serve, worker } from './service.ts';
import { DataDirInUseError } from '../db/index.ts';

const commands: Command[] = [serve, worker, migrate, keysCreate, keysList, keysRevoke, clientsCreate, clientsList, clientsRotate, clientsDelete, profilesCreate, providersAdd, providersList, providersRemove, webhooksAdd, webhooksList, webhooksRemove];

const HELP = ['--help', '-h', 'help'];
/** keys, clients, profiles: the first word of commands that have subcommands. */
const GROUPS = new Set(commands.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]!));

/** The commands of a group (or all of them), one line each. */
function overview(group?: string): string {
  const listed = group ? commands.filter((c) => c.name.startsWith(`${group} `)) : commands;
  const program = group ? `concierge ${group}` : 'concierge';
  return [`usage: ${program} <command> [options]`, '', ...listed.map((c) => `  ${c.name.padEnd(18)} ${c.summary}`), '', `concierge ${group ? `${group} ` : ''}<command> --help shows a command's options.`].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const command = commands.find((c) => {
    const words = c.name.split(' ');
    return words.every((w, i) => argv[i] === w);
  });
  if (!command) {
    const group = argv[0] !== undefined && GROUPS.has(argv[0]) ? argv[0] : undefined;
    const next = argv[group ? 1 : 0];
    const asked = next === undefined || HELP.includes(next);
    (asked ? process.stdout : process.stderr).write(`${asked ? '' : `unknown command: ${argv.join(' ')}\n\n`}${overview(group)}\n`);
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
