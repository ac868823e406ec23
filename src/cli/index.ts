import { Command, Option } from 'commander'
import { VERSION } from '../version.js'
import { checkConfig } from './check-config.js'
import { withConfigFlags } from './flags.js'
import { scan } from './scan.js'
import { serve } from './serve.js'

/**
 * The command line: `serve` (the default), `check-config` and `scan --once`. Every subcommand
 * reads its configuration as serve does (environment, .env, the flags of flags.ts over both).
 */
function buildProgram(): Command {
  const program = new Command('objstore-exporter')
    .description('Prometheus exporter for object storage capacity and bucket usage')
    .version(VERSION, '-v, --version', 'print the version and exit')
    .helpOption('-h, --help', 'show help')
    .addHelpText(
      'after',
      "\nConfiguration is read from the environment and a .env file (see docs/configuration.md);\na flag wins over both. Run `objstore-exporter <command> --help` for a command's flags.",
    )
  withConfigFlags(
    program
      .command('serve', { isDefault: true })
      .description('serve /metrics and the JSON API (the default)'),
  ).action((options: Record<string, unknown>) => serve(options))
  withConfigFlags(
    program
      .command('check-config')
      .description(
        'validate the configuration as serve does and print it, secrets masked; exit 2 when refused',
      ),
  ).action((options: Record<string, unknown>) => checkConfig(options))
  withConfigFlags(
    program
      .command('scan')
      .description('scan the configured source and print bucket usage')
      .option('--once', 'one scan, then exit (required: serve is the repeating scan)')
      .addOption(
        new Option('--format <format>', 'table (like du), json, or prometheus (text format)')
          .choices(['table', 'json', 'prometheus'])
          .default('table'),
      )
      .option('--bytes', 'table: sizes in bytes, not K/M/G')
      .option('--output <file>', 'write to FILE atomically (temporary file and rename) instead of stdout'),
    { web: false },
  ).action((options: Record<string, unknown>) => scan(options))
  return program
}

/** Runs the command line `argv` (process.argv: node, script, arguments). */
export async function runCli(argv: readonly string[]): Promise<void> {
  await buildProgram().parseAsync([...argv])
}
