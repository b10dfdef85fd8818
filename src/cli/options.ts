import { InvalidArgumentError } from 'commander';
import type { Environment } from '../domain/environment.js';
import { ALL_SCOPES, isScope, type Scope } from '../domain/scopes.js';

export function parseScopes(value: string): Scope[] {
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length || scopes.length === 0) {
    throw new InvalidArgumentError(
      `unknown scope(s) ${unknown.join(', ') || '(empty)'}; known: ${ALL_SCOPES.join(', ')}`,
    );
  }
  return scopes as Scope[];
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError('must be a positive integer');
  return n;
}

export function parseEnvironment(value: string): Environment {
  if (value !== 'live' && value !== 'sandbox') throw new InvalidArgumentError('must be live or sandbox');
  return value;
}
