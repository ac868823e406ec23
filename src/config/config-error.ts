/** Start-up refused: one line per bad variable, ready to print as is. */
export class ConfigError extends Error {
  constructor(readonly lines: readonly string[]) {
    super(lines.join('\n'))
    this.name = 'ConfigError'
  }
}
