/**
 * Money inside the service is an integer count of minor units (fils, cents) in a currency.
 * It becomes a decimal number only at the HTTP edge, through `toMajor`.
 */
export const CURRENCY_DECIMALS = {
  KWD: 3,
  BHD: 3,
  OMR: 3,
  JOD: 3,
  AED: 2,
  SAR: 2,
  QAR: 2,
  EGP: 2,
  USD: 2,
  EUR: 2,
} as const;

export type Currency = keyof typeof CURRENCY_DECIMALS;
export const CURRENCIES = Object.keys(CURRENCY_DECIMALS) as [Currency, ...Currency[]];

/**
 * The largest tip an order may carry, in major units of each currency: about 150 US dollars, far
 * above a real tip, so that a mistyped amount (a digit too many) is refused rather than charged.
 */
export const MAX_TIP = {
  KWD: 50,
  BHD: 50,
  OMR: 50,
  JOD: 100,
  AED: 500,
  SAR: 500,
  QAR: 500,
  EGP: 7500,
  USD: 150,
  EUR: 150,
} as const satisfies Record<Currency, number>;

/** MAX_TIP of the currency in minor units. */
export const maxTipMinor = (currency: Currency): number => fromMajor(MAX_TIP[currency], currency);

export function decimalsOf(currency: Currency): number {
  return CURRENCY_DECIMALS[currency];
}

/** Minor units -> the number a client sees, e.g. (1250, 'AED') -> 12.5, (1250, 'KWD') -> 1.25. */
export function toMajor(minor: number, currency: Currency): number {
  assertMinor(minor);
  const d = decimalsOf(currency);
  // Build the decimal text from integers so no float arithmetic touches the value.
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor)
    .toString()
    .padStart(d + 1, '0');
  const text = d === 0 ? abs : `${abs.slice(0, abs.length - d)}.${abs.slice(abs.length - d)}`;
  return Number(sign + text);
}

/**
 * Minor units -> the amount as a person reads it in a message, with all the currency's decimals
 * and its code: (2000, 'KWD') -> "2.000 KWD", (1250, 'AED') -> "12.50 AED".
 */
export function formatMoney(minor: number, currency: Currency): string {
  return `${toMajor(minor, currency).toFixed(decimalsOf(currency))} ${currency}`;
}

/**
 * A decimal amount a person typed (e.g. a refund of "2.5" KWD) -> minor units.
 * Refuses more decimals than the currency has instead of rounding; the RangeError's message says
 * what is wrong after the field's name (`tip` + " has more decimals than KWD has (3).").
 */
export function fromMajor(amount: number | string, currency: Currency): number {
  const d = decimalsOf(currency);
  const text = typeof amount === 'number' ? numberToPlainText(amount) : amount.trim();
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new RangeError(' must be a decimal amount.');
  const [, sign, whole, frac = ''] = m;
  if (frac.replace(/0+$/, '').length > d) {
    throw new RangeError(` has more decimals than ${currency} has (${d}).`);
  }
  const big = BigInt(whole! + frac.padEnd(d, '0').slice(0, d));
  // Beyond 2^53 a number no longer holds every integer: refuse rather than round.
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(` is too large for ${currency}.`);
  const minor = Number(big);
  return sign === '-' ? -minor : minor;
}

function numberToPlainText(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError('amount must be finite');
  // toString gives exponent form only for very large/small numbers; money never reaches those.
  return n.toString();
}

export function assertMinor(n: number): void {
  if (!Number.isSafeInteger(n)) throw new RangeError(`minor units must be a safe integer, got ${n}`);
}

/** percent of an amount in basis points (1/100 of a percent), rounded half up, integers only. */
export function percentOf(minor: number, basisPoints: number): number {
  assertMinor(minor);
  assertMinor(basisPoints);
  return Math.floor((minor * basisPoints + 5_000) / 10_000);
}

export function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) {
    assertMinor(v);
    total += v;
  }
  assertMinor(total);
  return total;
}
