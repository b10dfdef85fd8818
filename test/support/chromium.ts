import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's chromium, which the browser tests drive through playwright-core (`.ci/run` installs it).
 * CI must run those tests; elsewhere they are skipped, saying so, when chromium is not installed.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = fs.existsSync(CHROMIUM);

/** Whether the browser test of `what` runs: always in CI, elsewhere only with chromium, warning when skipped. */
export function browserTestRuns(what: string): boolean {
  if (haveChromium || process.env.CI === 'true') return true;
  console.warn(`!!! SKIPPED the ${what} browser test: ${CHROMIUM} is missing (apt-get install chromium)`);
  return false;
}

/** Headless chromium, without its sandbox and without the network traffic of its own (updates, sync). */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
