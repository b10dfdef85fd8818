import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, tempDataDir } from '../support/service.js';
import {
  ensureBuilt,
  runCli,
  startChildService,
  type ChildService,
  stopChildService,
} from '../support/child-service.js';
import {
  register,
  startReceiver,
  startWebhookService,
  type Receiver,
  type WebhookService,
} from '../http/webhooks-fixture.js';

// A webhook URL is a request the service makes for a partner. It must not let a partner use the
// service to probe other hosts: no well-known ports (SSH, SMTP...), and a delivery log whose
// errors are short fixed reasons that never repeat what the remote side said (a certificate's
// names, a redirect's target) or the addresses a name resolved to.

const PUBLIC_IP = '93.184.216.34';
const resolve = async () => [PUBLIC_IP];

describe('webhook URL ports (production rules)', () => {
  let ts: WebhookService;
  beforeAll(async () => {
    ts = await startWebhookService({ env: { WEBHOOKS_ALLOW_PRIVATE_URLS: 'false' }, webhooks: { resolve } });
  });
  afterAll(() => ts.close());

  it.each([
    'https://hooks.example.com:22/',
    'https://hooks.example.com:25/',
    'https://hooks.example.com:80/',
    'https://hooks.example.com:1023/',
    'https://hooks.example.com:0/',
    'https://[2606:4700::1]:53/',
  ])('when the URL is %s, then 400 validation_error on url and nothing is registered', async (url) => {
    const p = await ts.partner();
    const res = await ts.http.put('/v1/webhooks/endpoint').set(bearer(p.live)).send({ url });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'validation_error',
      param: 'url',
      message: expect.stringMatching(/port \d+ is not allowed: use 443 or a port from 1024 to 65535$/),
    });
    expect(await ts.stores.webhookEndpoints.get(p.id, 'live')).toBeNull();
  });

  it.each([
    'https://hooks.example.com/orders\u202e/redro',
    'https://hooks.example.com/a\nb',
    'https://hooks.example.com/a\u2028b',
    'https://hooks.example.com/\u0000',
    'https://hooks.example.com/\u200b',
  ])('when the URL %j holds a character no echoed text may, then 400 on url and nothing is registered', async (url) => {
    const p = await ts.partner();
    const res = await ts.http.put('/v1/webhooks/endpoint').set(bearer(p.live)).send({ url });
    expect([res.status, res.body.error?.code, res.body.error?.param]).toEqual([400, 'validation_error', 'url']);
    expect(await ts.stores.webhookEndpoints.get(p.id, 'live')).toBeNull();
  });

  it.each([
    'https://hooks.example.com/',
    'https://hooks.example.com:443/',
    'https://hooks.example.com:1024/',
    'https://hooks.example.com:8443/',
    'https://hooks.example.com:65535/',
  ])('when the URL is %s, then it is registered', async (url) => {
    const p = await ts.partner();
    expect((await ts.http.put('/v1/webhooks/endpoint').set(bearer(p.live)).send({ url })).status).toBe(201);
  });

  it('when a stored endpoint has a port the rules refuse, then the attempt is refused before sending, with a short reason', async () => {
    const p = await ts.partner();
    await register(ts, p.sandbox, 'https://hooks.example.com/');
    const stored = (await ts.stores.webhookEndpoints.get(p.id, 'sandbox'))!;
    expect(
      await ts.stores.webhookEndpoints.save(
        { ...stored, url: 'https://hooks.example.com:22/', version: stored.version + 1 },
        stored.version,
      ),
    ).toBe(true);
    const sent = await ts.http.post('/v1/webhooks/test').set(bearer(p.sandbox)).send({});
    await ts.scheduler.runDue();
    const d = (await ts.http.get(`/v1/webhooks/deliveries/${sent.body.data.id}`).set(bearer(p.sandbox))).body.data;
    expect(d.attempts[0]).toMatchObject({
      status: null,
      duration_ms: 0,
      error: 'refused before sending: port not allowed',
    });
  });
});

describe('webhook URL ports (private URLs allowed, local testing)', () => {
  let ts: WebhookService;
  beforeAll(async () => {
    ts = await startWebhookService();
  });
  afterAll(() => ts.close());

  it('when the URL uses port 80, then it is registered; another port below 1024 is still refused', async () => {
    const p = await ts.partner();
    expect(
      (await ts.http.put('/v1/webhooks/endpoint').set(bearer(p.sandbox)).send({ url: 'http://127.0.0.1/hooks' }))
        .status,
    ).toBe(201);
    expect(
      (await ts.http.put('/v1/webhooks/endpoint').set(bearer(p.sandbox)).send({ url: 'https://127.0.0.1:80/hooks' }))
        .status,
    ).toBe(200);
    const ssh = await ts.http
      .put('/v1/webhooks/endpoint')
      .set(bearer(p.sandbox))
      .send({ url: 'http://127.0.0.1:22/hooks' });
    expect(ssh.status).toBe(400);
    expect(ssh.body.error.message).toBe(
      'webhook URL port 22 is not allowed: use 443 or a port from 1024 to 65535 (or 80)',
    );
  });
});

const SECRET_NAME = 'secret-internal.example';

function opensslAvailable(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A self-signed certificate naming only SECRET_NAME: what a scanned host's certificate would tell. */
function certificate(dir: string): { key: Buffer; cert: Buffer; certFile: string } {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${SECRET_NAME}`,
      '-addext',
      `subjectAltName=DNS:${SECRET_NAME}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile), certFile };
}

async function listenHttps(options: { key: Buffer; cert: Buffer }): Promise<{ server: Server; port: number }> {
  const server = createHttpsServer(options, (_req, res) => res.writeHead(200).end('ok'));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('the delivery log repeats nothing the remote side said', () => {
  let ts: WebhookService;
  let receiver: Receiver;
  beforeAll(async () => {
    ts = await startWebhookService({ webhooks: { timeoutMs: 5000 } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await ts.close();
  });

  const firstAttempt = async (key: string) => {
    const sent = await ts.http.post('/v1/webhooks/test').set(bearer(key)).send({});
    await ts.scheduler.runDue();
    return (await ts.http.get(`/v1/webhooks/deliveries/${sent.body.data.id}`).set(bearer(key))).body.data.attempts[0];
  };

  it('when the receiver redirects, then the error says the redirect was not followed, without its target', async () => {
    receiver.reply = () => ({ status: 301, headers: { Location: `https://${SECRET_NAME}:8443/admin` } });
    const p = await ts.partner();
    await register(ts, p.sandbox, receiver.url);
    const attempt = await firstAttempt(p.sandbox);
    expect(attempt).toMatchObject({ status: 301, error: 'redirect not followed: webhooks must answer 2xx themselves' });
    expect(JSON.stringify(attempt)).not.toContain(SECRET_NAME);
  });

  it.skipIf(!opensslAvailable())(
    'when the certificate is not trusted, then the error is a fixed TLS reason',
    async () => {
      const dir = tempDataDir();
      const { server, port } = await listenHttps(certificate(dir));
      try {
        const p = await ts.partner();
        await register(ts, p.sandbox, `https://127.0.0.1:${port}/hooks`);
        const attempt = await firstAttempt(p.sandbox);
        expect(attempt).toMatchObject({ status: null, error: 'TLS certificate not trusted' });
      } finally {
        server.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

// A trusted certificate for other names is what a scan of public hosts meets: the service's own
// process has to trust it, so this runs the real service with NODE_EXTRA_CA_CERTS.
describe.skipIf(!opensslAvailable())('a trusted certificate for other names (real process)', () => {
  let dataDir: string;
  let service: ChildService;
  let https: { server: Server; port: number };
  beforeAll(async () => {
    ensureBuilt();
    dataDir = tempDataDir();
    const tls = certificate(fs.mkdtempSync(path.join(dataDir, 'tls-')));
    https = await listenHttps(tls);
    service = await startChildService(dataDir, {
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      NODE_EXTRA_CA_CERTS: tls.certFile,
    });
  }, 60_000);
  afterAll(async () => {
    await stopChildService(service);
    https?.server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('when the certificate does not name the host, then the error says so without the names it carries', async () => {
    const created = runCli(dataDir, ['partners', 'create', '--name', 'Scanner', '--json']);
    const key = (JSON.parse(created.stdout) as { sandbox_key: string }).sandbox_key;
    const headers = { Authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const put = await fetch(`${service.url}/v1/webhooks/endpoint`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ url: `https://localhost:${https.port}/hooks` }),
    });
    expect(put.status).toBe(201);
    const sent = (await (
      await fetch(`${service.url}/v1/webhooks/test`, { method: 'POST', headers, body: '{}' })
    ).json()) as { data: { id: string } };
    let attempt: { status: number | null; error: string | null } | undefined;
    for (const deadline = Date.now() + 30_000; !attempt && Date.now() < deadline;) {
      const d = (await (await fetch(`${service.url}/v1/webhooks/deliveries/${sent.data.id}`, { headers })).json()) as {
        data: { attempts: Array<{ status: number | null; error: string | null }> };
      };
      attempt = d.data.attempts[0];
      if (!attempt) await new Promise((r) => setTimeout(r, 50));
    }
    expect(attempt).toMatchObject({ status: null, error: 'TLS certificate not valid for host' });
    expect(service.output()).not.toContain(SECRET_NAME);
  }, 60_000);
});
