/** The service's base62 digits, written out here so tests check its ids against their own reading. */
export const BASE62_DIGITS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The number `digits` write in base 62. */
export const base62Value = (digits: string): bigint =>
  [...digits].reduce((n, c) => n * 62n + BigInt(BASE62_DIGITS.indexOf(c)), 0n);
