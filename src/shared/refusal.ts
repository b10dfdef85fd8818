/**
 * The stored data is not safe to start on (a lost or foreign event log, a missing key, a corrupted
 * file). The message says in one line what is wrong and what to do: the server prints it alone
 * (no stack) and exits 1, and the CLI prints it as an error.
 */
export class Refusal extends Error {
  override readonly name: string = 'Refusal';
}
