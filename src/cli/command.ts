import { parseArgs, type ParseArgsConfig } from 'node:util';

/** One CLI command: its usage text, its flags, and what it does. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  options?: ParseArgsConfig['options'];
  run(args: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] }): Promise<number | void>;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

export function parse(command: Command, argv: string[]) {
  return parseArgs({ args: argv, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
}

/** Prints a result for people, or as JSON for scripts with --json. */
export function output(json: boolean | undefined, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}
