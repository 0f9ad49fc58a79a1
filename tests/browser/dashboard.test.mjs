// Browser tests of the customer dashboard and the support view (harness.mjs starts the
// server and chromium).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  KEY_ID, SECRET, admin, adminJson, base, browser, dir, licenseApi, licensectl, licensectlBinary,
  newLicense, newPage, responseKey, screenshot, signIn, storeSql, useServer,
} from './harness.mjs';

useServer();

test('a customer signs in, sees the machines, frees a slot, and the refused activation succeeds',
     async () => {
  const key = newLicense(2);
  const studio = 'studio-pc-7f3a9c21e5d04b68';
  const laptop = 'laptop-0b91d2c4aa77e310';
  const ci = 'ci-runner-42-5e6f7a8b';
  assert.equal((await licenseApi('activate', { licenseKey: key, machineId: studio,
                                               machineName: 'Studio PC' })).status, 200);
  assert.equal((await licenseApi('activate', { licenseKey: key, machineId: laptop,
                                               machineName: 'Laptop' })).status, 200);
  const refused = await licenseApi('activate', { licenseKey: key, machineId: ci,
                                                 machineName: 'CI runner' });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 1705);
  // The 409's dashboardUrl is where the customer goes: this server's /dashboard.
  assert.equal(new URL(refused.body.dashboardUrl).pathname, '/dashboard');

  const page = await newPage();
  await page.goto(base + new URL(refused.body.dashboardUrl).pathname);
  await page.getByLabel('License key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const rows = page.locator('#machines tr');
  await rows.first().waitFor();
  assert.equal(await rows.count(), 2);
  assert.equal(await page.locator('#product').textContent(), 'Reverb Pro');
  assert.equal(await page.locator('#status').textContent(), 'ACTIVE');
  assert.equal(await page.locator('#usage').textContent(), '2 of 2 in use');
  // Machine ids are masked: the first and last 4 characters only.
  const text = await page.locator('#machines').textContent();
  assert.ok(text.includes('stud\u20264b68'), text);
  assert.ok(!text.includes(studio) && !(await page.content()).includes(laptop));
  await screenshot(page, 'dashboard-machines.png');

  // Keyboard only: focus the button, Enter opens the dialog, Tab to Deactivate, Enter.
  await page.getByRole('button', { name: 'Deactivate Laptop' }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.locator('dialog#confirm');
  await dialog.waitFor({ state: 'visible' });
  await screenshot(page, 'dashboard-confirm.png');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await page.locator('#notice', { hasText: 'The slot is free' }).waitFor();
  assert.equal(await rows.count(), 1);
  assert.equal(await page.locator('#usage').textContent(), '1 of 2 in use');

  // Escape cancels the dialog and frees nothing.
  await page.getByRole('button', { name: 'Deactivate Studio PC' }).click();
  await dialog.waitFor({ state: 'visible' });
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await rows.count(), 1);

  const retried = await licenseApi('activate', { licenseKey: key, machineId: ci,
                                                 machineName: 'CI runner' });
  assert.equal(retried.status, 200, JSON.stringify(retried.body));
  assert.equal(retried.body.activations, 2);

  // The freed slot is an audited change by the customer.
  const audit = adminJson('audit', key);
  const freed = audit.filter((r) => r.action === 'license.deactivate');
  assert.equal(freed.length, 1, JSON.stringify(audit));
  assert.equal(freed[0].actor, 'customer');
  assert.equal(freed[0].machineId, laptop);
  await page.reload();
  await page.locator('#history tr', { hasText: 'customer' }).first().waitFor();
  await screenshot(page, 'dashboard-history.png');
  await page.context().close();
});

test('a change without the CSRF token is refused', async () => {
  const key = newLicense(1);
  await licenseApi('activate', { licenseKey: key, machineId: 'keep-me-activated-01' });
  const page = await newPage();
  await signIn(page, key);
  await page.locator('#machines tr').first().waitFor();
  const view = await (await page.request.get(base + '/dashboard/api/license')).json();
  const handle = view.activations[0].handle;
  // The context's request client sends the session cookie like the page does.
  for (const headers of [{}, { 'X-CSRF-Token': 'not-the-token' }]) {
    const res = await page.request.post(base + '/dashboard/api/free-slot',
                                        { data: { machine: handle }, headers });
    assert.equal(res.status(), 403);
    assert.equal((await res.json()).error, 'FORBIDDEN');
  }
  // The offline routes too, before the file is even read.
  for (const route of ['offline-activate', 'offline-deactivate']) {
    const res = await page.request.post(base + '/dashboard/api/' + route,
                                        { data: { request: 'not a file' } });
    assert.equal(res.status(), 403, route);
  }
  const signOut = await page.request.delete(base + '/dashboard/api/session');
  assert.equal(signOut.status(), 403);
  const still = await licenseApi('status', { licenseKey: key, machineId: 'keep-me-activated-01' });
  assert.equal(still.body.machine.activated, true);
  // With the token it goes through.
  const ok = await page.request.post(base + '/dashboard/api/free-slot',
                                     { data: { machine: handle },
                                       headers: { 'X-CSRF-Token': view.csrfToken } });
  assert.equal(ok.status(), 200);
  await page.context().close();
});

test('the session cookie is HttpOnly and SameSite=Strict; the pages carry a strict CSP',
     async () => {
  const key = newLicense(1);
  const page = await newPage();
  await signIn(page, key);
  await page.locator('#license-view').waitFor();
  const [cookie] = await page.context().cookies();
  assert.equal(cookie.name, 'licensed_dashboard');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Strict');
  assert.equal(await page.evaluate(() => document.cookie), '');
  const res = await fetch(base + '/dashboard');
  assert.match(res.headers.get('content-security-policy'), /default-src 'self'/);
  assert.match(res.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  // Behind a TLS proxy the cookie is Secure too.
  const tls = await fetch(base + '/dashboard/api/session', {
    method: 'POST', body: JSON.stringify({ licenseKey: key }),
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-Proto': 'https' },
  });
  assert.match(tls.headers.get('set-cookie'), /; Secure/);
  // Signing in again gives a new session and ends the old one.
  const before = (await page.context().cookies())[0].value;
  const again = await page.request.post(base + '/dashboard/api/session',
                                        { data: { licenseKey: key } });
  assert.equal(again.status(), 200);
  const renewed = (await page.context().cookies())[0].value;
  assert.notEqual(renewed, before);
  const stale = await fetch(base + '/dashboard/api/license',
                            { headers: { Cookie: `licensed_dashboard=${before}` } });
  assert.equal(stale.status, 401);
  const fresh = await fetch(base + '/dashboard/api/license',
                            { headers: { Cookie: `licensed_dashboard=${renewed}` } });
  assert.equal(fresh.status, 200);
  await page.reload();
  await page.locator('#license-view').waitFor();
  // Sign-out ends the session on the server.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('License key').waitFor();
  assert.equal((await page.request.get(base + '/dashboard/api/license')).status(), 401);
  await page.context().close();
});

test('a wrong key is refused, the same as a malformed one', async () => {
  const page = await newPage();
  for (const key of [randomUUID(), 'not-a-license-key']) {
    await signIn(page, key);
    const error = page.locator('#sign-in-error');
    await error.filter({ hasText: 'not known' }).waitFor();
    assert.ok(await page.locator('#license-view').isHidden());
  }
  await screenshot(page, 'dashboard-sign-in-refused.png');
  assert.deepEqual(await page.context().cookies(), []);
  await page.context().close();
});

test('support: sign in with an admin token, search, see activations and audit, change status',
     async () => {
  const key = newLicense(3);
  await licenseApi('activate', { licenseKey: key, machineId: 'render-node-0001', machineName: 'Render node' });
  const token = adminJson('token', 'create', '--name', 'support-desk').token;
  const page = await newPage();
  await page.goto(base + '/dashboard/support');
  await page.getByLabel('Admin token').fill('lic_adm_wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#sign-in-error', { hasText: 'refused' }).waitFor();

  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('License key').fill(key);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#search-message', { hasText: '1 license found' }).waitFor();
  await page.getByLabel('License key').fill('');
  await page.getByLabel('Product (slug)').fill('reverb');
  await page.getByLabel('Status', { exact: true }).selectOption('ACTIVE');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#results tr', { hasText: key }).waitFor();
  await page.getByRole('button', { name: `Open license ${key}` }).click();
  await page.locator('#activations tr', { hasText: 'render-node-0001' }).waitFor();
  await page.locator('#audit tr', { hasText: 'license.activate' }).waitFor();

  await page.getByLabel('Change status to').selectOption('SUSPENDED');
  await page.getByRole('button', { name: 'Change status' }).click();
  // Suspending asks for a reason first (support.test.mjs covers the dialog).
  await page.getByLabel('Reason (kept in the history)', { exact: true }).fill('unpaid');
  await page.getByRole('button', { name: 'Change to SUSPENDED' }).click();
  await page.locator('#license-message', { hasText: 'Status changed to SUSPENDED' }).waitFor();
  await page.locator('#audit tr', { hasText: 'license.status' }).waitFor();
  assert.equal(await page.locator('#l-status').textContent(), 'SUSPENDED');

  // Support frees a slot too (allowed whatever the status), after the same confirmation.
  await page.getByRole('button', { name: 'Deactivate Render node' }).click();
  await page.getByRole('button', { name: 'Deactivate', exact: true }).click();
  await page.locator('#license-message', { hasText: 'Freed the slot' }).waitFor();
  assert.equal(await page.locator('#activations tr').count(), 0);

  assert.equal(adminJson('license', 'show', key).status, 'SUSPENDED');
  const changed = adminJson('audit', key).filter((r) => r.action === 'license.status');
  assert.equal(changed.length, 1);
  assert.equal(changed[0].actor, 'admin');
  assert.equal(changed[0].actorName, 'support-desk');
  const freed = adminJson('audit', key).filter((r) => r.action === 'license.deactivate');
  assert.equal(freed.length, 1);
  assert.equal(freed[0].actor, 'admin');
  assert.equal(freed[0].actorName, 'support-desk');
  // The plugin sees it at once.
  const status = await licenseApi('status', { licenseKey: key });
  assert.equal(status.body.status, 'SUSPENDED');
  await page.context().close();
});

test('support sees an offline machine with its end and frees its slot without a file, ' +
     'after a warning that the file keeps working there',
     { skip: !licensectlBinary && 'LICENSECTL_BINARY is not set' }, async () => {
  const key = newLicense(1);
  const studio = join(dir, 'support-studio');
  const machine = 'support-studio-0001';
  const requestFile = join(studio, 'request.txt');
  const requested = licensectl(studio, ['--license-key', key, '--machine-id', machine,
                                        'offline', 'request', '--out', requestFile]);
  assert.equal(requested.status, 0, requested.stderr);
  // Support turns the customer's request into a file, as by e-mail.
  admin('license', 'offline-activate', key, requestFile, '--out', join(studio, 'activation.lic'),
        '--signing-key', `${KEY_ID}=${SECRET}`);
  const until = adminJson('license', 'show', key).activations[0].offlineUntil;
  assert.ok(until, 'the admin answer shows the offline end');

  const token = adminJson('token', 'create', '--name', 'support-offline').token;
  const page = await newPage();
  await page.goto(base + '/dashboard/support');
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('License key').fill(key);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('button', { name: `Open license ${key}` }).click();
  const row = page.locator('#activations tr', { hasText: machine });
  await row.waitFor();
  const shownEnd = await page.evaluate((iso) => new Date(iso).toLocaleString(), until);
  assert.ok((await row.textContent()).includes('offline until ' + shownEnd),
            await row.textContent());
  await screenshot(page, 'support-offline.png');

  // Support can free it (the customer cannot without its deactivation file), and is told
  // what that does not undo.
  await row.getByRole('button', { name: `Deactivate ${machine}` }).click();
  const warning = page.locator('#confirm-text');
  await warning.waitFor();
  assert.ok((await warning.textContent())
                .includes('its activation file keeps working on that machine until ' + shownEnd),
            await warning.textContent());
  await page.getByRole('button', { name: 'Deactivate', exact: true }).click();
  await page.locator('#license-message', { hasText: 'Freed the slot' }).waitFor();
  assert.equal(await page.locator('#activations tr').count(), 0);
  const freed = adminJson('audit', key).filter((r) => r.action === 'license.deactivate');
  assert.equal(freed.length, 1);
  assert.equal(freed[0].actor, 'admin');
  // The slot is free for another machine.
  const other = await licenseApi('activate', { licenseKey: key, machineId: 'support-studio-0002' });
  assert.equal(other.status, 200, JSON.stringify(other.body));
  await page.context().close();
});

test('the history shows the newest page first and "Show older" pages back to the oldest',
     async () => {
  const key = newLicense(1);
  // create, activate, and 29 activations again (each audited as a refresh): 31 records,
  // more than the page of 20.
  for (let i = 0; i < 30; ++i) {
    const r = await licenseApi('activate', { licenseKey: key, machineId: 'studio-pc-7f3a9c21' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const page = await newPage();
  await signIn(page, key);
  const rows = page.locator('#history tr');
  await rows.first().waitFor();
  assert.equal(await rows.count(), 20);
  assert.match(await rows.first().textContent(), /heartbeat \(again\)/);
  const older = page.getByRole('button', { name: 'Show older' });
  assert.ok(await older.isVisible());
  await older.click();
  await rows.nth(30).waitFor();
  assert.equal(await rows.count(), 31);
  // The oldest record comes last, and there is nothing older to ask for.
  assert.match(await rows.last().textContent(), /create/);
  assert.match(await rows.nth(29).textContent(), /activate/);
  assert.ok(await older.isHidden());
  await page.context().close();
});

// A store sale as Stripe delivers it: a Stripe store made through the admin API (on the
// public listener), then checkout.session.completed signed like Stripe signs it
// (Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>).
const STRIPE_SECRET = 'whsec_' + randomBytes(16).toString('hex');
let stripeStore, storeToken;

async function adminApi(token, method, path, body) {
  const res = await fetch(base + '/api/v1/admin' + path, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
  });
  return { status: res.status, body: await res.json() };
}

async function ensureStripeStore() {
  if (stripeStore) return stripeStore;
  storeToken = adminJson('token', 'create', '--name', 'store-setup').token;
  const token = storeToken;
  const plan = await adminApi(token, 'POST', '/products/reverb/plans',
                              { code: 'studio', name: 'Studio <yearly>', max: 2, validFor: '365d' });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  const made = await adminApi(token, 'POST', '/stores', {
    provider: 'stripe', name: 'Web shop', secret: STRIPE_SECRET,
    mapping: { price_studio: { product: 'reverb', plan: 'studio', perUnit: true } },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  stripeStore = made.body;
  return stripeStore;
}

// The keys of a sale's licenses, as the admin API finds them by order id.
async function keysOfOrder(orderId) {
  const found = await adminApi(storeToken, 'GET', '/licenses?orderId=' + encodeURIComponent(orderId));
  assert.equal(found.status, 200, JSON.stringify(found.body));
  return found.body.items.map((l) => l.licenseKey);
}

async function deliverStripeSale(session, email, name) {
  const store = await ensureStripeStore();
  const body = JSON.stringify({
    id: 'evt_' + randomBytes(8).toString('hex'), object: 'event', api_version: '2024-06-20',
    created: Math.floor(Date.now() / 1000), livemode: true, type: 'checkout.session.completed',
    data: { object: {
      id: session, object: 'checkout.session', mode: 'payment', payment_status: 'paid',
      payment_intent: 'pi_' + randomBytes(8).toString('hex'),
      customer_details: { email, name },
      line_items: { object: 'list', has_more: false,
                    data: [{ id: 'li_1', price: { id: 'price_studio' }, quantity: 2 }] },
    } },
  });
  const t = String(Math.floor(Date.now() / 1000));
  const v1 = createHmac('sha256', STRIPE_SECRET).update(`${t}.${body}`).digest('hex');
  const res = await fetch(base + store.inboundUrl, {
    method: 'POST', body,
    headers: { 'Content-Type': 'application/json', 'Stripe-Signature': `t=${t},v1=${v1}` },
  });
  assert.equal(res.status, 200, await res.text());
  return store;
}

test('the claim page waits for the webhook, then shows the Checkout session\'s keys',
     async () => {
  const store = await ensureStripeStore();
  const session = 'cs_live_' + randomBytes(24).toString('hex');
  const page = await newPage();
  // The buyer arrives before the webhook: a page saying the keys are being prepared.
  const first = await page.goto(`${base}/claim/${store.id}/${session}`);
  assert.equal(first.status(), 404);
  assert.equal(first.headers()['cache-control'], 'no-store');
  assert.equal(first.headers()['referrer-policy'], 'no-referrer');
  await page.getByText('being prepared').waitFor();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });

  await deliverStripeSale(session, 'grace@example.com', 'Grace <Hopper>');
  const keys = await keysOfOrder(session);
  assert.equal(keys.length, 2);
  // The page reloads itself (a <meta refresh>, no script) and finds them.
  const fields = page.getByLabel('License key');
  await fields.first().waitFor({ timeout: 20000 });
  assert.equal(await fields.count(), 2);
  assert.deepEqual((await fields.evaluateAll((els) => els.map((e) => e.value))).sort(),
                   [...keys].sort());
  assert.ok(await fields.first().evaluate((e) => e.readOnly));
  await page.getByRole('heading', { name: 'Reverb Pro' }).first().waitFor();
  const text = await page.locator('main').textContent();
  assert.ok(text.includes('Studio <yearly>'), text);  // escaped, so shown as text
  assert.ok(text.includes('Grace <Hopper>'), text);
  assert.equal(await page.locator('main b, main img, main script').count(), 0);
  // The stylesheet applies (the CSP lets only the server's own files in).
  assert.equal(await page.locator('.card').first().evaluate((e) => getComputedStyle(e).borderRadius),
               '8px');
  assert.deepEqual(errors, [], 'no CSP violation or other console error');
  await screenshot(page, 'claim-page.png');

  // Another store's page of the same session is the same page as an unknown one.
  const other = await fetch(`${base}/claim/${store.id + 1000}/${session}`);
  assert.equal(other.status, 404);
  await page.context().close();
});

test('support finds a sale by the buyer\'s email in any case and by its order id', async () => {
  const session = 'cs_live_' + randomBytes(24).toString('hex');
  await deliverStripeSale(session, 'Linus.Sale@Example.com', 'Linus Sale');
  const keys = await keysOfOrder(session);
  assert.equal(keys.length, 2);
  const token = adminJson('token', 'create', '--name', 'support-sales').token;
  const page = await newPage();
  await page.goto(base + '/dashboard/support');
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await page.getByLabel('Customer email').fill('LINUS.SALE@example.COM');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#search-message', { hasText: '2 licenses found' }).waitFor();
  for (const key of keys) await page.locator('#results tr', { hasText: key }).waitFor();
  assert.ok((await page.locator('#results').textContent())
                .includes('Linus Sale <Linus.Sale@Example.com>'));

  await page.getByLabel('Customer email').fill('');
  await page.getByLabel('Store order id').fill(session);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#search-message', { hasText: '2 licenses found' }).waitFor();
  await page.getByRole('button', { name: `Open license ${keys[0]}` }).click();
  await page.locator('#l-customer', { hasText: 'Linus Sale <Linus.Sale@Example.com>' }).waitFor();
  const store = await ensureStripeStore();
  assert.equal(await page.locator('#l-source').textContent(),
               `stripe store ${store.id}, order ${session}`);

  // A case-changed order id is another order: nothing.
  await page.getByRole('link', { name: 'Back to the search' }).click();
  await page.getByLabel('Store order id').fill(session.toUpperCase());
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('#search-message', { hasText: '0 licenses found' }).waitFor();
  await page.context().close();
});

// Last: it spends this client's sign-in budget on the shared server.
test('the offline studio flow: a licensectl request pasted in the dashboard, activation.lic ' +
     'verified, then its deactivation file frees the slot',
     { skip: !licensectlBinary && 'LICENSECTL_BINARY is not set' }, async () => {
  const key = newLicense(1);
  // Freed at once by a deactivation file (the default, "expiry", keeps the slot counted
  // until the file's end: checked below with a second license).
  storeSql(`UPDATE licenses SET offline_release = 'deactivation' WHERE license_key = '${key}'`);
  const studio = join(dir, 'studio-rack');
  const machine = 'studio-rack-0001';
  const requestFile = join(studio, 'request.txt');
  const requested = licensectl(studio, ['--license-key', key, '--machine-id', machine,
                                        'offline', 'request',
                                        '--out', requestFile]);
  assert.equal(requested.status, 0, requested.stderr);
  const requestText = readFileSync(requestFile, 'utf8');
  assert.ok(requestText.startsWith('-----BEGIN LICENSE ACTIVATION REQUEST-----'), requestText);

  const page = await newPage();
  await signIn(page, key);
  await page.locator('#usage').waitFor();
  await page.getByLabel('Activation request').fill(requestText);
  await screenshot(page, 'offline-request.png');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Activate', exact: true }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'activation.lic');
  const activation = join(studio, 'activation.lic');
  await download.saveAs(activation);
  const result = page.locator('#offline-result-text');
  await result.waitFor();
  assert.match(await result.textContent(), /^Activated .* until .*activation\.lic was downloaded/);

  // The machines list shows it offline with its end, and offers no plain Deactivate.
  const row = page.locator('#machines tr', { hasText: 'offline until' });
  await row.waitFor();
  assert.equal(await page.locator('#usage').textContent(), '1 of 1 in use');
  assert.equal(await row.getByRole('button').count(), 0);
  assert.ok((await row.textContent()).includes('Needs its deactivation file'));
  await screenshot(page, 'offline-activated.png');

  // Back on the studio machine: the file verifies there with the pinned key, no network.
  const publicKey = await responseKey();
  const verified = licensectl(studio, ['--public-key', publicKey, '--machine-id', machine,
                                       'offline', 'verify', activation, '--product', 'reverb']);
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  // The activation is the customer's, offline, in the audit.
  const activations = adminJson('audit', key).filter((r) => r.action === 'license.activate');
  assert.equal(activations.length, 1);
  assert.equal(activations[0].actor, 'customer');
  assert.equal(activations[0].offline, true);

  // Moving machines: the deactivation file (the activation file deleted first).
  const deactivationFile = join(studio, 'deactivation.txt');
  const deactivated = licensectl(studio, ['--public-key', publicKey, '--machine-id', machine,
                                          'offline', 'deactivate', '--activation-file',
                                          activation, '--out', deactivationFile]);
  assert.equal(deactivated.status, 0, deactivated.stderr);
  await page.getByLabel('Deactivation file', { exact: true })
            .fill(readFileSync(deactivationFile, 'utf8'));
  await page.getByRole('button', { name: 'Deactivate offline machine' }).click();
  await page.locator('#notice', { hasText: 'The offline machine is deactivated' }).waitFor();
  assert.equal(await page.locator('#usage').textContent(), '0 of 1 in use');
  await page.locator('#no-machines').waitFor();
  await screenshot(page, 'offline-deactivated.png');
  // The slot is free: another machine activates at once.
  const other = await licenseApi('activate', { licenseKey: key, machineId: 'studio-rack-0002' });
  assert.equal(other.status, 200, JSON.stringify(other.body));

  // The same file again: that activation is gone (1707).
  await page.getByLabel('Deactivation file', { exact: true })
            .fill(readFileSync(deactivationFile, 'utf8'));
  await page.getByRole('button', { name: 'Deactivate offline machine' }).click();
  await page.locator('#deactivation-error', { hasText: /./ }).waitFor();
  await page.context().close();
});

test('a #request= link fills the form on a phone; another license\'s request is refused; ' +
     'under "expiry" a deactivated machine keeps its slot until the file\'s end',
     { skip: !licensectlBinary && 'LICENSECTL_BINARY is not set' }, async () => {
  const mine = newLicense(1);
  const other = newLicense(1);
  const laptop = join(dir, 'tour-laptop');
  const requestFile = join(laptop, 'request.txt');
  const requested = licensectl(laptop, ['--license-key', other, '--machine-id', 'tour-laptop-01',
                                        'offline', 'request', '--out', requestFile]);
  assert.equal(requested.status, 0, requested.stderr);
  const requestText = readFileSync(requestFile, 'utf8');

  // A phone that scanned the plugin's QR code opens the dashboard with the request.
  const context = await browser.newContext({ viewport: { width: 390, height: 844 },
                                             isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await page.goto(base + '/dashboard#request=' + encodeURIComponent(requestText));
  await page.getByLabel('License key').fill(mine);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const field = page.getByLabel('Activation request');
  await field.waitFor();
  assert.equal(await field.inputValue(), requestText);
  assert.equal(new URL(page.url()).hash, '', 'the request leaves the address');
  // The page fits the phone's width: nothing scrolls sideways but the tables.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(overflow <= 390, `the page is ${overflow}px wide`);

  // Signed in with another license than the request's: refused, nothing activated.
  await page.getByRole('button', { name: 'Activate', exact: true }).click();
  const error = page.locator('#offline-error');
  await error.filter({ hasText: 'another license' }).waitFor();
  assert.equal(adminJson('license', 'show', other).activations.length, 0);
  await context.close();

  // The request's own license takes it; its deactivation under "expiry" (the default)
  // marks the machine but keeps the slot counted until the file's end.
  const owner = await newPage();
  await signIn(owner, other);
  await owner.getByLabel('Activation request').fill(requestText);
  const [download] = await Promise.all([
    owner.waitForEvent('download'),
    owner.getByRole('button', { name: 'Activate', exact: true }).click(),
  ]);
  const activation = join(laptop, 'activation.lic');
  await download.saveAs(activation);
  const deactivationFile = join(laptop, 'deactivation.txt');
  const deactivated = licensectl(laptop, ['--public-key', await responseKey(), '--machine-id',
                                          'tour-laptop-01', 'offline', 'deactivate',
                                          '--activation-file', activation,
                                          '--out', deactivationFile]);
  assert.equal(deactivated.status, 0, deactivated.stderr);
  await owner.getByLabel('Deactivation file', { exact: true })
             .fill(readFileSync(deactivationFile, 'utf8'));
  await owner.getByRole('button', { name: 'Deactivate offline machine' }).click();
  await owner.locator('#notice', { hasText: 'The offline machine is deactivated' }).waitFor();
  await owner.locator('#machines tr', { hasText: 'deactivated; slot counted until' }).waitFor();
  assert.equal(await owner.locator('#usage').textContent(), '1 of 1 in use');
  const refused = await licenseApi('activate', { licenseKey: other, machineId: 'tour-laptop-02' });
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  await owner.context().close();
});

test('sign-ins are rate limited per client IP', async () => {
  let refused;
  for (let i = 0; i < 30 && !refused; ++i) {
    const res = await fetch(base + '/dashboard/api/session', {
      method: 'POST', body: JSON.stringify({ licenseKey: randomUUID() }),
      headers: { 'Content-Type': 'application/json' },
    });
    if (res.status === 429) refused = res;
    else assert.equal(res.status, 401);
  }
  assert.ok(refused, 'no 429 within 30 sign-ins');
  const body = await refused.json();
  assert.equal(body.code, 1706);
  assert.equal(body.bucket, 'ip');
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
});
