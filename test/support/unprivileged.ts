/**
 * Root ignores file permissions (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so a test that needs a
 * folder the exporter cannot write or read runs it without those two capabilities: `setpriv`
 * (util-linux) drops them from the bounding set before it execs the command, which keeps uid 0.
 * Unlike running as `nobody`, that reaches a checkout under a 0700 folder (a home folder), so the
 * README's test command passes wherever the clone is. Not root: permissions already apply.
 */
const DROPPED = '-dac_override,-dac_read_search'

/** `command args` as a process for which file permissions apply, even when the tests run as root. */
export function withoutPermissionOverride(
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  if (process.getuid?.() !== 0) return { command, args: [...args] }
  return {
    command: 'setpriv',
    args: [`--bounding-set=${DROPPED}`, `--inh-caps=${DROPPED}`, command, ...args],
  }
}
