// The layout arrows of README.md ("Layout"), checked by `npm run lint` (dependency-cruiser).
// Each folder may import itself, shared/ and the folders its arrow names: nothing else of ours.
// Arrows point only down the list (checked below), so no folder reaches itself through others;
// `no-circular` forbids circles between modules, inside a folder too. Type-only imports count:
// a type ties two modules together as a value does.

const AT = {
  shared: 'src/shared/',
  config: 'src/config\\.ts$',
  domain: 'src/domain/',
  ports: 'src/ports/',
  projections: 'projections/',
  adapters: 'src/adapters/',
  'catalog-data': 'src/catalog-data/',
  application: 'src/application/',
  webhooks: 'src/webhooks/',
  http: 'src/http/',
  composition: 'src/composition/',
  cli: 'src/cli/',
  main: 'src/main\\.ts$',
};

/** Our code: an import of any of it that a rule does not allow is an error. */
const OURS = '^(src|projections|test)/';

/** The arrows: each folder, what it may import, and why. Listed bottom-up; test/unit/layout-docs.test.ts holds README.md to them. */
export const LAYERS = [
  ['shared', [], 'Helpers every folder may use (ids, clock, logger): the bottom.'],
  ['config', [], 'The environment read into a validated Config.'],
  ['domain', [], 'Pure rules: no storage, transport or use case.'],
  ['ports', ['domain'], 'Interfaces in domain terms, below whatever uses or implements them.'],
  [
    'projections',
    ['ports', 'domain'],
    'Read models fold domain events; application/ and webhooks/ read them, so they import neither.',
  ],
  ['adapters', ['ports', 'domain'], 'Implementations of ports, chosen by composition/ only.'],
  ['catalog-data', ['domain'], 'The demo catalog, built from domain types.'],
  [
    'application',
    ['projections', 'ports', 'domain', 'catalog-data'],
    'Use cases over ports, whoever calls them (HTTP, CLI, webhooks).',
  ],
  [
    'webhooks',
    ['application', 'projections', 'ports', 'domain', 'config'],
    'Webhook use cases and their sender; HTTP and the CLI sit above them.',
  ],
  [
    'http',
    ['webhooks', 'application', 'projections', 'ports', 'domain'],
    'The HTTP edge: calls use cases, never picks adapters.',
  ],
  [
    'composition',
    ['http', 'webhooks', 'application', 'projections', 'adapters', 'ports', 'domain', 'catalog-data', 'config'],
    'Wires adapters into services: everything but the entry points.',
  ],
  [
    'cli',
    ['composition', 'webhooks', 'application', 'projections', 'ports', 'domain', 'config'],
    'The operator CLI, an entry point beside HTTP: it shares use cases, not HTTP code.',
  ],
  ['main', ['composition', 'http', 'config'], 'The process entry: configuration, composition, HTTP server.'],
];

// A folder that may import one listed after it could close a circle of folders.
LAYERS.forEach(([name, allowed], i) => {
  const above = allowed.filter((a) => !LAYERS.slice(0, i).some(([n]) => n === a));
  if (above.length)
    throw new Error(
      `.dependency-cruiser.js: ${name} may import ${above.join(', ')}, listed after it (a folder circle?)`,
    );
});

/** `name` imports nothing of ours but itself, shared/ and `allowed`. */
function layer([name, allowed, comment]) {
  const ok = [name, 'shared', ...allowed].map((n) => AT[n]);
  return {
    name,
    comment,
    severity: 'error',
    from: { path: `^${AT[name]}` },
    to: { path: OURS, pathNot: `^(${ok.join('|')})` },
  };
}

export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No module reaches itself through its imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...LAYERS.map(layer),
  ],
  options: {
    includeOnly: OURS,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
