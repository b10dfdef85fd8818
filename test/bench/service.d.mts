// Types of the parts of service.mjs that the TypeScript tests use (test/unit/start-command.test.ts).

/** `npm start`'s environment assignments and node flags; throws when it is not `node [flags] dist/src/main.js`. */
export function startCommand(): { env: Record<string, string>; flags: string[] };
