import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../src/domain/money.js';

describe('formatMoney', () => {
  it('writes minor units as the major amount with all the currency decimals and its code', () => {
    expect(formatMoney(2000, 'KWD')).toBe('2.000 KWD');
    expect(formatMoney(1250, 'AED')).toBe('12.50 AED');
    expect(formatMoney(5, 'BHD')).toBe('0.005 BHD');
    expect(formatMoney(0, 'USD')).toBe('0.00 USD');
    expect(formatMoney(-150, 'EUR')).toBe('-1.50 EUR');
  });
});
