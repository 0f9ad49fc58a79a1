// The support console (issue 23 items 5-7; docs/protocol.md §26): search by every way a
// customer describes themselves with real paging, actions with a reason (a plan change
// among them), the history with what changed and refused activations, a URL per license,
// read-only tokens, and the overview's charts. Every state visited is checked by axe-core
// in light and dark mode. Real chromium against the real licensed binary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  admin, adminJson, base, expectNoSeriousAxeViolations, licenseApi, newLicense, newPage,
  screenshot, useServer,
} from './harness.mjs';

useServer();

// axe-core on the page as it stands, in light and then dark mode (emulated
// prefers-color-scheme); the page is left light.
async function expectAccessibleInBothSchemes(page, label) {
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches),
                 colorScheme === 'dark', 'the page sees the scheme emulated');
    await expectNoSeriousAxeViolations(page, `${label}, ${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

async function signInSupport(page, name, readOnly = false) {
  const args = ['token', 'create', '--name', name];
  if (readOnly) args.push('--read-only');
  const token = adminJson(...args).token;
  await page.goto(base + '/dashboard/support');
  await page.getByLabel('Admin token').waitFor();
  await expectAccessibleInBothSchemes(page, 'support sign-in');
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#token-name', { hasText: name }).waitFor();
  return token;
}

test('support finds licenses by part of a key, a machine name and EXPIRED, pages with a ' +
     'true total, and clears stale results on an error', async () => {
  const key = newLicense(2);
  await licenseApi('activate', { licenseKey: key, machineId: 'edit-suite-0001',
                                 machineName: 'Edit Suite B' });
  const expired = adminJson('license', 'create', '--product', 'reverb', '--max', '1',
                            '--expires-at', '2020-01-01T00:00:00Z').licenseKey;
  for (let i = 0; i < 3; ++i) newLicense(1);
  const page = await newPage();
  await signInSupport(page, 'support-search');

  await page.getByLabel('License key').fill(' ' + key.slice(9, 18).toUpperCase() + ' ');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#search-message', { hasText: '1 license found' }).waitFor();
  await page.locator('#results tr', { hasText: key }).waitFor();
  await expectAccessibleInBothSchemes(page, 'search results');

  // A search that finds nothing says so, with no empty table.
  await page.getByLabel('License key').fill('');
  await page.getByLabel('Machine id or name').fill('no-such-machine-anywhere');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#search-message', { hasText: '0 licenses found' }).waitFor();
  assert.ok(await page.locator('#results-table').isHidden());
  await expectAccessibleInBothSchemes(page, 'empty search');

  await page.getByLabel('Machine id or name').fill('edit suite b');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#search-message', { hasText: '1 license found' }).waitFor();
  await page.locator('#results tr', { hasText: key }).waitFor();

  await page.getByLabel('Machine id or name').fill('');
  await page.getByLabel('Status', { exact: true }).selectOption('EXPIRED');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#results tr', { hasText: expired }).waitFor();
  assert.equal(await page.locator('#results tr').count(), 1);

  // Paging: 50 a page, so make more than 50 live licenses and walk both pages.
  for (let i = 0; i < 50; ++i) newLicense(1);
  await page.getByLabel('Status', { exact: true }).selectOption('');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#page-text', { hasText: /^Showing 1–50 of \d+$/ }).waitFor();
  const of = Number((await page.locator('#page-text').textContent()).split(' of ')[1]);
  assert.ok(of > 50, 'the total counts every page');
  await screenshot(page, 'support-search.png');
  await page.getByRole('button', { name: 'Next page' }).click();
  await page.locator('#page-text', { hasText: `Showing 51–${of} of ${of}` }).waitFor();
  assert.ok(await page.getByRole('button', { name: 'Next page' }).isDisabled());
  await page.getByRole('button', { name: 'Previous page' }).click();
  await page.locator('#page-text', { hasText: 'Showing 1–50' }).waitFor();

  // An error empties the table: nothing stale stays beside it.
  await page.getByLabel('Product (slug)').fill('no-such-product');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#search-error', { hasText: 'unknown product' }).waitFor();
  assert.equal(await page.locator('#results tr').count(), 0);
  assert.ok(await page.locator('#results-table').isHidden());
  await expectAccessibleInBothSchemes(page, 'search error');
  await page.context().close();
});

test('support changes max, expiry and TTL, revokes with a reason, sees what changed, the ' +
     'request id and a refused activation, and the #license= URL survives reload and back',
     async () => {
  const key = newLicense(1);
  await licenseApi('activate', { licenseKey: key, machineId: 'studio-0001', machineName: 'Studio' });
  const refused = await licenseApi('activate', { licenseKey: key, machineId: 'laptop-0002',
                                                 machineName: 'Laptop' });
  assert.equal(refused.status, 409);
  const page = await newPage();
  await signInSupport(page, 'support-actions');
  await page.goto(base + '/dashboard/support#license=' + key);
  await page.locator('#l-key', { hasText: key }).waitFor();
  // The refused activation is there, with why and from which machine.
  const refusal = page.locator('#refusals tr', { hasText: 'laptop-0002' });
  await refusal.waitFor();
  assert.ok((await refusal.textContent()).includes('all machine slots taken (1705)'));
  assert.ok((await refusal.textContent()).includes(refused.body.requestId));
  await expectAccessibleInBothSchemes(page, 'license view');

  await page.getByLabel('Max machines').fill('3');
  await page.getByLabel('Expires (date, empty: never)').fill('2031-05-01');
  await page.getByLabel('Machine TTL in seconds (empty: never)').fill('86400');
  await page.getByLabel('Reason for these changes (kept in the history)').fill('upgrade to studio');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.locator('#license-message', { hasText: 'Saved.' }).waitFor();
  assert.equal(await page.locator('#l-usage').textContent(), '1 of 3');
  assert.equal(await page.locator('#l-ttl').textContent(), '1 d');
  await page.locator('#audit tr', { hasText: 'max 1 → 3' }).waitFor();
  assert.ok((await page.locator('#audit').textContent()).includes('reason: upgrade to studio'));

  // Revoking asks for a reason; Cancel changes nothing.
  await page.getByLabel('Change status to').selectOption('REVOKED');
  await page.getByRole('button', { name: 'Change status' }).click();
  await page.getByRole('dialog', { name: 'Change the status to REVOKED?' }).waitFor();
  await expectAccessibleInBothSchemes(page, 'confirmation dialog open');
  await page.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await page.locator('#l-status').textContent(), 'ACTIVE');
  await page.getByRole('button', { name: 'Change status' }).click();
  await page.getByLabel('Reason (kept in the history)', { exact: true }).fill('chargeback 77');
  await page.getByRole('button', { name: 'Change to REVOKED' }).click();
  await page.locator('#license-message', { hasText: 'Status changed to REVOKED' }).waitFor();
  const revoked = adminJson('audit', key).filter((r) => r.action === 'license.status');
  assert.equal(revoked.length, 1);
  assert.equal(revoked[0].reason, 'chargeback 77');
  assert.ok(revoked[0].requestId, 'the admin request id is kept');
  await page.locator('#audit tr', { hasText: revoked[0].requestId }).waitFor();
  await page.locator('#audit tr', { hasText: 'status ACTIVE → REVOKED' }).waitFor();
  await expectAccessibleInBothSchemes(page, 'license changed and revoked');
  await screenshot(page, 'support-license.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'support-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });

  // Reload and back keep the license open.
  await page.reload();
  await page.locator('#l-key', { hasText: key }).waitFor();
  await page.getByRole('link', { name: 'Back to the search' }).click();
  await page.locator('#search-view').waitFor();
  await page.goBack();
  await page.locator('#l-key', { hasText: key }).waitFor();

  // Delete, then restore.
  await page.getByRole('button', { name: 'Delete license' }).click();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.locator('#license-message', { hasText: 'Deleted' }).waitFor();
  assert.equal(await page.locator('#l-status').textContent(), 'DELETED');
  await page.getByRole('button', { name: 'Restore license' }).click();
  await page.locator('#license-message', { hasText: 'Restored.' }).waitFor();
  assert.equal(adminJson('license', 'show', key).deletedAt, null);
  await page.context().close();
});

test('a read-only token sees the license and its history but no write control', async () => {
  const key = newLicense(1);
  const activated = await licenseApi('activate', { licenseKey: key, machineId: 'readonly-0001',
                                                   machineName: 'RO' });
  assert.equal(activated.status, 200, JSON.stringify(activated.body));
  const page = await newPage();
  await signInSupport(page, 'support-viewer', true);
  await page.locator('#token-name', { hasText: '(read only)' }).waitFor();
  await page.goto(base + '/dashboard/support#license=' + key);
  await page.locator('#activations tr', { hasText: 'readonly-0001' }).waitFor();
  for (const name of ['Change status', 'Save changes', 'Delete license', 'Deactivate RO']) {
    assert.equal(await page.getByRole('button', { name }).count(), 0, name);
  }
  assert.equal(await page.getByRole('combobox', { name: 'Plan' }).count(), 0, 'no plan control');
  await page.locator('#audit tr', { hasText: 'license.activate' }).waitFor();
  await expectAccessibleInBothSchemes(page, 'read-only token');
  await screenshot(page, 'support-read-only.png');
  await page.context().close();
});

test('the overview draws licenses by status, activations, refusals and trials as SVG and ' +
     'lists the licenses nearest their cap', async () => {
  const key = newLicense(1);
  await licenseApi('activate', { licenseKey: key, machineId: 'cap-0001' });
  assert.equal((await licenseApi('activate', { licenseKey: key, machineId: 'cap-0002' })).status, 409);
  const page = await newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await signInSupport(page, 'support-overview');
  await page.getByRole('link', { name: 'Overview' }).click();
  await page.locator('#chart-statuses svg').waitFor();
  for (const id of ['chart-statuses', 'chart-activations', 'chart-refusals', 'chart-trials']) {
    const label = await page.locator(`#${id} svg`).getAttribute('aria-label');
    assert.ok(label && label.length > 0, id);
    assert.ok(await page.locator(`#${id} svg rect`).count() > 0, id);
  }
  assert.match(await page.locator('#chart-refusals svg').getAttribute('aria-label'),
               /^[1-9]\d* refusals for the machine cap/);
  const row = page.locator('#nearest-cap tr', { hasText: key });
  await row.waitFor();
  assert.ok((await row.textContent()).includes('1 of 1'));
  await expectAccessibleInBothSchemes(page, 'overview charts');
  await screenshot(page, 'support-overview.png');
  await row.getByRole('button', { name: `Open license ${key}` }).click();
  await page.locator('#l-key', { hasText: key }).waitFor();
  assert.ok(page.url().endsWith('#license=' + key));
  assert.deepEqual(errors, [], 'no CSP violation or other console error');
  await page.context().close();
});

test('support moves a license to another plan with a reason: the plan fills in its members, ' +
     'the history shows each change from/to, and an unknown plan is refused', async () => {
  admin('plan', 'create', '--product', 'reverb', '--code', 'basic', '--name', 'Basic', '--max', '1');
  admin('plan', 'create', '--product', 'reverb', '--code', 'studio', '--name', 'Studio',
        '--max', '5', '--machine-ttl', '30d', '--entitlement', 'surround=true',
        '--entitlement', 'stems@365d');
  const key = adminJson('license', 'create', '--product', 'reverb', '--plan', 'basic').licenseKey;
  const page = await newPage();
  await signInSupport(page, 'support-plans');
  await page.goto(base + '/dashboard/support#license=' + key);
  await page.locator('#l-plan', { hasText: 'basic' }).waitFor();
  const plan = page.getByRole('combobox', { name: 'Plan' });
  assert.equal(await plan.inputValue(), 'basic');

  await plan.selectOption({ label: 'Studio (studio)' });
  assert.equal(await page.getByLabel('Max machines').inputValue(), '5');
  assert.equal(await page.getByLabel('Machine TTL in seconds (empty: never)').inputValue(),
               String(30 * 86400));
  const entitlements = await page.getByLabel('Entitlements').inputValue();
  assert.match(entitlements, /(^|, )stems until \d{4}-\d{2}-\d{2}(,|$)/);
  assert.match(entitlements, /(^|, )surround(,|$)/);
  await page.locator('#edit-plan-hint', { hasText: 'Filled in from plan Studio' }).waitFor();
  await page.getByLabel('Reason for these changes (kept in the history)').fill('upgrade, order 881');
  await expectAccessibleInBothSchemes(page, 'plan chosen, not saved');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.locator('#license-message', { hasText: 'Saved.' }).waitFor();

  assert.equal(await page.locator('#l-plan').textContent(), 'studio');
  assert.equal(await page.locator('#l-usage').textContent(), '0 of 5');
  assert.equal(await plan.inputValue(), 'studio');
  await page.locator('#audit tr', { hasText: 'plan basic → studio' }).waitFor();
  await page.locator('#audit tr', { hasText: 'max 1 → 5' }).waitFor();
  const planRow = await page.locator('#audit tr', { hasText: 'plan basic → studio' }).textContent();
  assert.ok(planRow.includes('reason: upgrade, order 881'), planRow);
  assert.ok(planRow.includes('support-plans'), planRow);

  const shown = adminJson('license', 'show', key);
  assert.equal(shown.plan, 'studio');
  assert.equal(shown.max, 5);
  assert.equal(shown.machineTtl, 30 * 86400);
  const surround = shown.entitlements.find((e) => e.code === 'surround');
  assert.equal(surround.value, true, 'the plan\'s entitlement value is kept');
  assert.ok(shown.entitlements.find((e) => e.code === 'stems').expiresAt);
  const changed = adminJson('audit', key).filter((r) => r.changes && r.changes.plan);
  assert.equal(changed.length, 1);
  assert.deepEqual(changed[0].changes.plan, { from: 'basic', to: 'studio' });
  assert.equal(changed[0].reason, 'upgrade, order 881');
  assert.equal(changed[0].actorName, 'support-plans');
  assert.ok(changed[0].requestId);
  await expectAccessibleInBothSchemes(page, 'plan changed');
  await screenshot(page, 'support-plan.png');

  // Back to no plan: only the code changes.
  await plan.selectOption('');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.locator('#audit tr', { hasText: 'plan studio → none' }).waitFor();
  assert.equal(await page.locator('#l-plan').textContent(), 'none');
  assert.equal(adminJson('license', 'show', key).max, 5);

  // The admin API refuses a code the product does not have, and writes nothing.
  const token = adminJson('token', 'create', '--name', 'plan-api').token;
  const res = await fetch(base + '/api/v1/admin/licenses/' + key, {
    method: 'PATCH', body: JSON.stringify({ plan: 'platinum', max: 9 }),
    headers: { 'Authorization': 'Bearer ' + token, 'Content-Type': 'application/json' },
  });
  assert.equal(res.status, 400);
  const refused = await res.json();
  assert.equal(refused.code, 1702);
  assert.equal(refused.field, 'plan');
  assert.equal(adminJson('license', 'show', key).max, 5);
  assert.equal(adminJson('license', 'show', key).plan, null);
  await page.context().close();
});

// A license of `max` machines and `maxConcurrent` seats that may be borrowed for an hour.
function seatLicense(max, maxConcurrent) {
  return adminJson('license', 'create', '--product', 'reverb', '--max', String(max),
                   '--max-concurrent', String(maxConcurrent), '--max-borrow', '1h').licenseKey;
}

// A signed checkout (docs/protocol.md §27); `extra` adds sessionId or borrowFor.
function checkout(key, machineId, extra = {}) {
  return licenseApi('checkout', { licenseKey: key, machineId, ...extra });
}

test('support sees who holds each seat until when, releases one with a confirmation ' +
     '(audited license.checkin by admin), and the refused checkout then succeeds; an ended ' +
     'lease is never listed', async () => {
  const key = seatLicense(4, 3);
  for (const [machineId, machineName] of [['studio-pc-0001', 'Studio PC'],
                                          ['tour-laptop-01', undefined],
                                          ['render-node-03', 'Render node'],
                                          ['ci-runner-0004', 'CI runner']]) {
    const r = await licenseApi('activate', { licenseKey: key, machineId, machineName });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const studio = await checkout(key, 'studio-pc-0001');
  assert.equal(studio.status, 200, JSON.stringify(studio.body));
  const laptop = await checkout(key, 'tour-laptop-01', { sessionId: 'tour-session-1',
                                                         borrowFor: '1h' });
  assert.equal(laptop.status, 200, JSON.stringify(laptop.body));
  // A seat borrowed for 2 s: it ends by itself before the page is opened.
  const short = await checkout(key, 'render-node-03', { sessionId: 'short-borrow-1',
                                                        borrowFor: '2s' });
  assert.equal(short.status, 200, JSON.stringify(short.body));
  const full = await checkout(key, 'ci-runner-0004');
  assert.equal(full.status, 409);
  assert.equal(full.body.code, 1710);
  await new Promise((resolve) => setTimeout(resolve, 2500));

  const page = await newPage();
  await signInSupport(page, 'support-seats');
  await page.goto(base + '/dashboard/support#license=' + key);
  const rows = page.locator('#seats-list tr');
  await rows.first().waitFor();
  assert.equal(await rows.count(), 2, 'the ended lease is not listed');
  assert.equal(await page.locator('#seats-usage').textContent(), '2 of 3 seats in use');
  assert.equal(await page.locator('#l-seats').textContent(), '2 of 3 seats in use');
  assert.ok(!(await page.locator('#seats-list').textContent()).includes('short-borrow-1'));
  const until = (iso) => page.evaluate((t) => new Date(t).toLocaleString(), iso);
  // Earliest end first: the studio's 15-minute lease, then the laptop's borrowed hour.
  const cells = async (i) => rows.nth(i).locator('td').allTextContents();
  assert.deepEqual((await cells(0)).slice(0, 4),
                   ['Studio PC', 'studio-pc-0001', await until(studio.body.lease.expiresAt), 'no']);
  assert.deepEqual((await cells(1)).slice(0, 4),
                   ['tour-laptop-01', 'tour-session-1', await until(laptop.body.lease.expiresAt),
                    'yes']);
  await expectAccessibleInBothSchemes(page, 'seats listed');
  await screenshot(page, 'support-seats.png');

  // A seat is taken again (the ended one no longer counts), so the cap is reached: 1710.
  assert.equal((await checkout(key, 'ci-runner-0004')).status, 200);
  const refused = await checkout(key, 'render-node-03');
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 1710);
  await page.reload();
  await page.locator('#seats-usage', { hasText: '3 of 3 seats in use' }).waitFor();

  // Escape cancels: nothing is released.
  const release = page.getByRole('button', { name: 'Release the seat of Studio PC, session ' +
                                                   'studio-pc-0001' });
  await release.click();
  const dialog = page.locator('dialog#confirm');
  await dialog.waitFor({ state: 'visible' });
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await rows.count(), 3);

  // Keyboard only: focus Release, Enter opens the confirmation, Tab to Release, Enter.
  await release.focus();
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'visible' });
  assert.match(await dialog.textContent(), /The seat of Studio PC \(session studio-pc-0001\)/);
  await expectAccessibleInBothSchemes(page, 'release confirmation');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'confirm-ok');
  await page.keyboard.press('Enter');
  await page.locator('#license-message', { hasText: 'Released the seat of Studio PC' }).waitFor();
  await page.locator('#seats-usage', { hasText: '2 of 3 seats in use' }).waitFor();
  assert.equal(await rows.count(), 2);
  assert.ok(!(await page.locator('#seats-list').textContent()).includes('Studio PC'));
  assert.equal(await page.evaluate(() => document.activeElement.id), 'seats-title');

  const checkins = adminJson('audit', key).filter((r) => r.action === 'license.checkin');
  assert.equal(checkins.length, 1, JSON.stringify(checkins));
  assert.equal(checkins[0].actor, 'admin');
  assert.equal(checkins[0].actorName, 'support-seats');
  assert.equal(checkins[0].machineId, 'studio-pc-0001');
  const retried = await checkout(key, 'render-node-03');
  assert.equal(retried.status, 200, JSON.stringify(retried.body));
  await page.reload();
  await page.locator('#seats-list tr', { hasText: 'Render node' }).waitFor();
  await page.locator('#audit tr', { hasText: 'license.checkin' }).waitFor();
  await page.context().close();
});

test('a read-only token sees the seats but no Release button; a borrowed seat\'s release ' +
     'warns that its lease file keeps working offline, and a session id with a slash and ' +
     'spaces is released', async () => {
  const key = seatLicense(2, 1);
  assert.equal((await licenseApi('activate', { licenseKey: key, machineId: 'tour-laptop-02',
                                               machineName: 'Tour laptop' })).status, 200);
  // A session id with a space, a slash and a non-ASCII letter: percent-encoded in the path.
  const session = 'tour laptop/2 \u00e9t\u00e9';
  const borrowed = await checkout(key, 'tour-laptop-02', { sessionId: session, borrowFor: '1h' });
  assert.equal(borrowed.status, 200, JSON.stringify(borrowed.body));

  const viewer = await newPage();
  await signInSupport(viewer, 'support-seats-viewer', true);
  await viewer.goto(base + '/dashboard/support#license=' + key);
  await viewer.locator('#seats-list tr', { hasText: 'Tour laptop' }).waitFor();
  assert.equal(await viewer.getByRole('button', { name: /^Release/ }).count(), 0);
  await viewer.context().close();

  const page = await newPage();
  await signInSupport(page, 'support-seats-writer');
  await page.goto(base + '/dashboard/support#license=' + key);
  await page.getByRole('button', { name: 'Release the seat of Tour laptop, session ' +
                                         session }).click();
  const dialog = page.locator('dialog#confirm');
  await dialog.waitFor({ state: 'visible' });
  assert.match(await dialog.textContent(), /It is borrowed: its lease file keeps working offline/);
  await page.locator('#confirm-ok').click();
  await page.locator('#no-seats').waitFor();
  assert.equal(await page.locator('#seats-usage').textContent(), '0 of 1 seats in use');
  assert.ok(await page.locator('#seats-table').isHidden());
  const checkins = adminJson('audit', key).filter((r) => r.action === 'license.checkin');
  assert.equal(checkins.length, 1, JSON.stringify(checkins));
  assert.equal(checkins[0].actor, 'admin');
  await page.context().close();
});
