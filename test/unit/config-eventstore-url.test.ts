import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const withUrl = (url: string) => loadConfig({ EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: url });

describe('EVENTSTORE_URL', () => {
  it('given an esdb:// or esdb+discover:// string, then it is taken as it is (what client 6 parses)', () => {
    expect(withUrl('esdb://eventstore:2113?tls=false').EVENTSTORE_URL).toBe('esdb://eventstore:2113?tls=false');
    expect(withUrl('esdb+discover://a:2113,b:2113').EVENTSTORE_URL).toBe('esdb+discover://a:2113,b:2113');
  });

  it("given KurrentDB's kurrentdb:// or kdb:// schemes, then they are read as esdb://", () => {
    expect(withUrl('kurrentdb://db:2113?tls=false').EVENTSTORE_URL).toBe('esdb://db:2113?tls=false');
    expect(withUrl('kdb+discover://db:2113').EVENTSTORE_URL).toBe('esdb+discover://db:2113');
  });

  it('given another scheme or no host, then start-up stops with one line naming the variable', () => {
    for (const url of ['http://db:2113', 'esdb://', 'tcp://db:1113', 'esdb:db:2113']) {
      expect(() => withUrl(url)).toThrow(ConfigError);
      expect(() => withUrl(url)).toThrow(
        /^Invalid configuration: EVENTSTORE_URL must be an esdb:\/\/host:2113 connection string/,
      );
    }
  });
});
