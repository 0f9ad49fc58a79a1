// Browser tests of the customer dashboard on a phone and in each of its states (issue 23):
// machines as cards at 390 x 844, keys as people paste them, the signed-in link of a 1705,
// pending and failed changes, bidirectional text, dark mode, the vendor's brand. Each
// state is checked with axe-core (harness.mjs). harness.mjs starts the server and chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  base, browser, expectNoSeriousAxeViolations, licenseApi, newLicense, screenshot, signIn,
  useServer,
} from './harness.mjs';

useServer();

test('the sign-in page and the signed-in license have no serious axe violations', async () => {
  const key = newLicense(2);
  await licenseApi('activate', { licenseKey: key, machineId: 'studio-pc-0001', machineName: 'Studio' });
  const page = await browser.newPage();
  await page.goto(base + '/dashboard');
  await page.getByLabel('License key').waitFor();
  await expectNoSeriousAxeViolations(page, 'sign-in');
  await signIn(page, key);
  await page.locator('#machines tr').first().waitFor();
  await expectNoSeriousAxeViolations(page, 'signed in');
});
