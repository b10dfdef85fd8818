import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configSchema, loadConfig } from '../../src/config.js';
import { CLOSE_BOUND_MS } from '../../src/composition/shutdown.js';

// docker-compose.yml and the proxy's Caddyfile, checked by reading them (no Docker engine here):
// services, restart policies, health checks, start order, the service's environment against
// src/config.ts, and the proxy's upstreams against the api replicas.

interface Service {
  image?: string;
  build?: unknown;
  restart?: string;
  command?: string[];
  hostname?: string;
  init?: boolean;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string; interval?: string; retries?: number };
  stop_grace_period?: string;
}

const compose = parse(fs.readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;
const apis = Object.keys(services).filter((name) => /^api-\d+$/.test(name));
const healthTest = (s: Service) => [s.healthcheck?.test ?? []].flat().join(' ');

/** Compose's `${VAR:?message}`: the value is required from the environment, with no default. */
const REQUIRED_FROM_ENV = /^\$\{([A-Z_]+):\?[^}]+\}$/;
/** Compose's `${VAR:-default}`, as compose reads it when VAR is not set. */
const withDefaults = (env: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.replace(/^\$\{[A-Z_]+:-([^}]*)\}$/, '$1')]));
/** The proxy's configuration directory, mounted from the repository. */
const caddyDir = (proxy: Service) => proxy.volumes!.find((v) => v.endsWith(':/etc/caddy:ro'))?.split(':')[0];

describe('docker-compose.yml', () => {
  it('then it runs the stores, two api replicas and the proxy, each with a restart policy', () => {
    expect(Object.keys(services).sort()).toEqual(['api-1', 'api-2', 'eventstore', 'mongo', 'proxy']);
    expect(apis).toEqual(['api-1', 'api-2']);
    for (const [name, s] of Object.entries(services))
      expect(s.restart, name).toMatch(/^(always|unless-stopped|on-failure(:\d+)?)$/);
  });

  it('then every image is pinned to a version, never latest', () => {
    for (const [name, s] of Object.entries(services)) {
      if (s.build) continue;
      expect(s.image, name).toMatch(/^[\w./-]+:\d+(\.\d+)*(-[\w.]+)?$/);
    }
    expect(services.proxy!.image).toMatch(/^caddy:2\.\d+\.\d+/);
  });

  it('then MongoDB is healthy only once its one-node replica set has a primary, initiating it when needed', () => {
    const mongo = services.mongo!;
    expect(mongo.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    const test = healthTest(mongo);
    expect(test).toContain('mongosh');
    expect(test).toContain('rs.status()');
    expect(test).toMatch(/rs\.initiate\(\{ _id: 'rs0', members: \[\{ _id: 0, host: 'mongo:27017' \}\] \}\)/);
    expect(test).toContain('e.code !== 94'); // only NotYetInitialized leads to rs.initiate
    expect(test).toMatch(/if \(!db\.hello\(\)\.isWritablePrimary\) quit\(1\)/);
    // The script is one JavaScript program for mongosh.
    const script = (mongo.healthcheck!.test as string[]).at(-1)!;
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiles the script without running it
    expect(() => new Function('rs', 'db', 'quit', script)).not.toThrow();
  });

  it('then EventStoreDB has a health check', () => {
    expect(healthTest(services.eventstore!)).toContain('http://localhost:2113/health/live');
  });

  it('then each api replica waits for both stores to be healthy and reports ready only when its stores answer', () => {
    for (const name of apis) {
      const s = services[name]!;
      expect(s.depends_on, name).toEqual({
        eventstore: { condition: 'service_healthy' },
        mongo: { condition: 'service_healthy' },
      });
      expect(healthTest(s), name).toContain('http://127.0.0.1:3000/readyz');
      expect(s.build, name).toBe('.');
      expect(s.hostname, name).toBe(name);
      expect(s.ports ?? [], `${name} publishes no port: clients go through the proxy`).toEqual([]);
    }
  });

  it("then the replicas' environment names only variables of src/config.ts, and it passes the service's validation", () => {
    const known = new Set(Object.keys(configSchema.shape));
    for (const name of apis) {
      const env = services[name]!.environment!;
      for (const key of Object.keys(env))
        expect(known.has(key), `${name}: ${key} is not a variable of src/config.ts`).toBe(true);
      expect(env).toMatchObject({
        EVENT_STORE: 'eventstoredb',
        EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false',
        READ_STORE: 'mongodb',
        MONGODB_URL: 'mongodb://mongo:27017/?replicaSet=rs0',
        PORT: '3000',
      });
      // Secrets come from compose's environment (the README's .env), required, never a default in the file.
      expect(env.ADMIN_TOKEN).toMatch(REQUIRED_FROM_ENV);
      expect(REQUIRED_FROM_ENV.exec(env.ADMIN_TOKEN!)![1]).toBe('ADMIN_TOKEN');
      expect(env.WEBHOOK_SECRETS_KEY).toMatch(REQUIRED_FROM_ENV);
      expect(REQUIRED_FROM_ENV.exec(env.WEBHOOK_SECRETS_KEY!)![1]).toBe('WEBHOOK_SECRETS_KEY');

      const given = {
        ...withDefaults(env),
        ADMIN_TOKEN: 'a'.repeat(48),
        WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      };
      const config = loadConfig(given);
      expect(config.METRICS_PORT, `${name}: metrics on their own port`).toBeGreaterThan(0);
      expect(config.METRICS_PORT).not.toBe(config.PORT);
    }
    expect(services['api-1']!.environment).toEqual(services['api-2']!.environment);
  });

  it("then Docker's SIGKILL comes after the replica's own shutdown deadline (grace period plus close bound)", () => {
    for (const name of apis) {
      const config = loadConfig({
        ...withDefaults(services[name]!.environment!),
        ADMIN_TOKEN: 'a'.repeat(48),
        WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      });
      const match = /^(\d+)s$/.exec(services[name]!.stop_grace_period ?? '');
      expect(match, `${name}: stop_grace_period in seconds`).not.toBeNull();
      expect(Number(match![1]) * 1000, name).toBeGreaterThan(config.SHUTDOWN_GRACE_MS + CLOSE_BOUND_MS);
    }
  });

  it('then the stores, which run without authentication here, are published on this host only', () => {
    for (const name of ['eventstore', 'mongo']) {
      const ports = services[name]!.ports ?? [];
      expect(ports.length, name).toBeGreaterThan(0);
      for (const p of ports) expect(p, name).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    }
  });

  it('then each replica runs under an init (SIGTERM reaches it during start-up) and links the console to the EventStoreDB UI', () => {
    for (const name of apis) {
      expect(services[name]!.init, name).toBe(true);
      expect(services[name]!.environment!.EVENTSTORE_UI_URL, name).toBe(
        `http://localhost:${services.eventstore!.ports![0]!.split(':').at(-1)}/`,
      );
    }
  });

  it('then the secrets file it reads is kept out of git and out of the build context', () => {
    for (const file of ['.gitignore', '.dockerignore'])
      expect(fs.readFileSync(file, 'utf8').split('\n'), file).toContain('.env');
  });

  it("then payment links use PUBLIC_BASE_URL when it is set, the proxy's address otherwise", () => {
    for (const name of apis) {
      expect(services[name]!.environment!.PUBLIC_BASE_URL).toBe('${PUBLIC_BASE_URL:-http://localhost:3000}');
      expect(
        loadConfig({
          ...withDefaults(services[name]!.environment!),
          PUBLIC_BASE_URL: 'https://orders.example.com',
          ADMIN_TOKEN: 'a'.repeat(48),
          WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
        }).PUBLIC_BASE_URL,
      ).toMatch(/^https:\/\/orders\.example\.com\/?$/);
      expect(
        loadConfig({
          ...withDefaults(services[name]!.environment!),
          ADMIN_TOKEN: 'a'.repeat(48),
          WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
        }).PUBLIC_BASE_URL,
      ).toMatch(/^http:\/\/localhost:3000\/?$/);
    }
  });

  it('then the metrics port of a replica is never published (it answers without a token)', () => {
    const published = Object.values(services).flatMap((s) => s.ports ?? []);
    for (const name of apis) {
      const metricsPort = services[name]!.environment!.METRICS_PORT!;
      expect(
        published.some((p) => p.split(':').includes(metricsPort)),
        metricsPort,
      ).toBe(false);
    }
  });

  it('then the proxy waits for every replica to be healthy, publishes port 3000, and mounts its configuration from the repository', () => {
    const proxy = services.proxy!;
    expect(proxy.depends_on).toEqual(Object.fromEntries(apis.map((a) => [a, { condition: 'service_healthy' }])));
    expect(proxy.ports).toEqual(['3000:3000']);
    // The directory: a file mount keeps the old copy when an editor replaces the file.
    expect(caddyDir(proxy)).toBe('./docs/deploy');
    expect(fs.existsSync(`${caddyDir(proxy)}/Caddyfile`)).toBe(true);
    expect(proxy.healthcheck).toBeDefined();
  });
});

/** A Caddyfile as a tree: each line's words, with the lines of its `{ ... }` block. Enough for this file. */
interface Directive {
  words: string[];
  block: Directive[];
}

function parseCaddyfile(text: string): Directive[] {
  const root: Directive = { words: [], block: [] };
  const stack = [root];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '') continue;
    if (line === '}') {
      stack.pop();
      continue;
    }
    const opens = line.endsWith('{');
    const node: Directive = {
      words: line
        .replace(/\s*\{$/, '')
        .split(/\s+/)
        .filter(Boolean),
      block: [],
    };
    stack.at(-1)!.block.push(node);
    if (opens) stack.push(node);
  }
  expect(stack, 'balanced braces').toHaveLength(1);
  return root.block;
}

describe('docs/deploy/Caddyfile', () => {
  const proxy = services.proxy!;
  const file = `${caddyDir(proxy)}/Caddyfile`;
  const top = parseCaddyfile(fs.readFileSync(file, 'utf8'));
  // The global options block has no words; every other top-level block is a site.
  const sites = top.filter((d) => d.words.length > 0);
  const proxies = sites.flatMap((site) => site.block.filter((d) => d.words[0] === 'reverse_proxy'));
  const options = (name: string) => proxies[0]!.block.filter((d) => d.words[0] === name);

  it('then it serves one site, on the port the proxy service publishes', () => {
    const containerPort = proxy.ports![0]!.split(':').at(-1);
    expect(sites.map((s) => s.words)).toEqual([[`:${containerPort}`]]);
    expect(proxies).toHaveLength(1);
  });

  it('then its upstreams are exactly the api replicas, on the port they listen on', () => {
    expect(proxies[0]!.words.slice(1)).toEqual(apis.map((a) => `${a}:${services[a]!.environment!.PORT}`));
  });

  it('then replicas are health-checked on /readyz, actively and passively', () => {
    expect(options('health_uri').map((d) => d.words)).toEqual([['health_uri', '/readyz']]);
    expect(options('health_interval')).toHaveLength(1);
    expect(options('fail_duration')).toHaveLength(1);
    expect(options('max_fails')).toHaveLength(1);
  });

  it('then requests that reached a replica are retried on another only for GET and HEAD', () => {
    expect(options('lb_try_duration')).toHaveLength(1);
    expect(options('lb_retry_match').map((d) => d.block.map((m) => m.words))).toEqual([[['method', 'GET', 'HEAD']]]);
    // Nothing buffers request bodies, which replaying a POST would need.
    expect(options('request_buffers')).toEqual([]);
  });
});
