import { existsSync } from 'node:fs'
import { type Browser, chromium, type Locator } from 'playwright-core'

/** Debian's chromium (`apt-get install chromium`); .ci/run installs it. */
export const CHROMIUM_PATH = '/usr/bin/chromium'

/** Why a browser test is skipped; in CI a missing chromium is a failure, not a skip. */
export function chromiumSkipReason(): string | false {
  if (existsSync(CHROMIUM_PATH)) return false
  if (process.env.CI)
    throw new Error(`${CHROMIUM_PATH} is missing in CI: .ci/run must install the chromium package`)
  return 'chromium not installed (apt-get install chromium)'
}

/**
 * Headless Chromium with a fresh profile (Playwright's launch() makes a new temporary
 * user-data-dir and removes it on close). The flags keep it from reaching for the network:
 * without them it floods a closed network with update and sync attempts.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    chromiumSandbox: false,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 60_000,
  })
}

/** The text as rendered for a reader (layout and CSS applied), which is what a user reads. */
export function visibleText(locator: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point here.
  return locator.innerText()
}
