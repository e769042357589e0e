import { describe, expect, it } from 'vitest';
import { isAddressOrCidr, loadConfig, parseSites } from '../../src/config.js';

const refused = (env: Record<string, string>) => () => loadConfig(env);

describe('loadConfig defaults (DESIGN.md "Configuration names")', () => {
  const c = loadConfig({});

  it('PORT 8080, HOST 127.0.0.1, BASE_URL http://localhost:8080', () => {
    expect(c.port).toBe(8080);
    expect(c.host).toBe('127.0.0.1');
    expect(c.baseUrl).toBe('http://localhost:8080');
  });

  it('PAYMENTS test, MODERATOR local, outbox mail, PGlite under ./data', () => {
    expect(c.payments).toBe('test');
    expect(c.moderator).toBe('local');
    expect(c.smtpUrl).toBeUndefined();
    expect(c.databaseUrl).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
    expect(c.dataDir).toBe('./data');
  });

  it('MODERATOR_START_SECONDS 2, PLATFORM_RATE 100, PLATFORM_BURST 200, no webhook exceptions', () => {
    expect(c.moderatorStartSeconds).toBe(2);
    expect(c.platformRate).toBe(100);
    expect(c.platformBurst).toBe(200);
    expect(c.webhookAllowTargets).toEqual([]);
    expect(c.trustProxy).toBeUndefined();
    expect(c.adminToken).toBeUndefined();
    expect(c.secretKey).toBeUndefined();
  });

  it('one stories site on any host', () => {
    expect(c.sites).toEqual([{ host: '*', kind: 'stories' }]);
  });

  it('BASE_URL follows PORT when it is not set', () => {
    expect(loadConfig({ PORT: '3000' }).baseUrl).toBe('http://localhost:3000');
  });

  it('a blank variable means "not set", not 0 or ""', () => {
    const blank = loadConfig({
      PORT: '',
      HOST: ' ',
      BASE_URL: '',
      PAYMENTS: '',
      MODERATOR_START_SECONDS: '',
    });
    expect(blank.port).toBe(8080);
    expect(blank.host).toBe('127.0.0.1');
    expect(blank.baseUrl).toBe('http://localhost:8080');
    expect(blank.payments).toBe('test');
    expect(blank.moderatorStartSeconds).toBe(2);
  });

  it('reads process.env when given nothing', () => {
    // vitest itself sets BASE_URL=/ (Vite's base path), which is not an absolute URL: set both.
    const saved = { PORT: process.env.PORT, BASE_URL: process.env.BASE_URL };
    process.env.PORT = '9191';
    process.env.BASE_URL = 'https://from-env.example';
    try {
      const c = loadConfig();
      expect(c.port).toBe(9191);
      expect(c.baseUrl).toBe('https://from-env.example');
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('a relative BASE_URL such as "/" is refused rather than producing links without a host', () => {
    expect(() => loadConfig({ BASE_URL: '/' })).toThrow(/BASE_URL:/);
  });
});

describe('loadConfig reads every name', () => {
  it('takes the values it is given', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      BASE_URL: 'https://stories.example.com/',
      DATA_DIR: '/var/lib/agentpress',
      DATABASE_URL: 'postgres://u:p@db:5432/agentpress',
      REDIS_URL: 'redis://cache:6379',
      ADMIN_TOKEN: 'admin',
      SECRET_KEY: 'secret',
      SMTP_URL: 'smtps://mail.example.com:465',
      PAYMENTS: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_example',
      STRIPE_WEBHOOK_SECRET: 'whsec_example',
      MODERATOR: 'openai',
      MODERATOR_URL: 'https://llm.example.com/v1',
      MODERATOR_MODEL: 'moderator-1',
      MODERATOR_START_SECONDS: '0',
      WEBHOOK_ALLOW_TARGETS: '127.0.0.1, 10.0.0.0/8,::1',
      PLATFORM_RATE: '50',
      PLATFORM_BURST: '75',
      TRUST_PROXY: '10.0.0.0/8,loopback',
    });
    expect(c).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      baseUrl: 'https://stories.example.com',
      dataDir: '/var/lib/agentpress',
      databaseUrl: 'postgres://u:p@db:5432/agentpress',
      redisUrl: 'redis://cache:6379',
      adminToken: 'admin',
      secretKey: 'secret',
      smtpUrl: 'smtps://mail.example.com:465',
      payments: 'stripe',
      stripeSecretKey: 'sk_test_example',
      stripeWebhookSecret: 'whsec_example',
      moderator: 'openai',
      moderatorStartSeconds: 0,
      webhookAllowTargets: ['127.0.0.1', '10.0.0.0/8', '::1'],
      platformRate: 50,
      platformBurst: 75,
      trustProxy: '10.0.0.0/8,loopback',
    });
  });

  it('PAYMENTS=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET; STRIPE_API_BASE must be a URL', () => {
    expect(() => loadConfig({ PAYMENTS: 'stripe' })).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => loadConfig({ PAYMENTS: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x' })).toThrow(
      /STRIPE_WEBHOOK_SECRET/,
    );
    const c = loadConfig({
      PAYMENTS: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_x',
      STRIPE_WEBHOOK_SECRET: 'whsec_x',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
    });
    expect(c.stripeApiBase).toBe('http://127.0.0.1:12111');
    expect(() =>
      loadConfig({
        PAYMENTS: 'stripe',
        STRIPE_SECRET_KEY: 'a',
        STRIPE_WEBHOOK_SECRET: 'b',
        STRIPE_API_BASE: 'x',
      }),
    ).toThrow(/STRIPE_API_BASE/);
  });

  it('strips every trailing slash of BASE_URL', () => {
    expect(loadConfig({ BASE_URL: 'http://agentpress.test//' }).baseUrl).toBe('http://agentpress.test');
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['false', false],
    ['127.0.0.1', '127.0.0.1'],
    ['loopback, 192.168.0.0/16', 'loopback,192.168.0.0/16'],
  ])('TRUST_PROXY=%s', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toBe(expected);
  });
});

describe('bad values are refused with a clear error', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PAYMENTS', 'paypal'],
    ['MODERATOR', 'gpt'],
    ['MODERATOR_START_SECONDS', '-1'],
    ['PLATFORM_RATE', '0'],
    ['PLATFORM_BURST', 'many'],
    ['LOG_LEVEL', 'loud'],
    ['BASE_URL', 'not a url'],
    ['BASE_URL', 'ftp://example.com'],
    ['BASE_URL', 'https://example.com/?x=1'],
    ['BASE_URL', 'https://user:pw@example.com'],
    ['DATABASE_URL', 'mysql://db/agentpress'],
    ['REDIS_URL', 'localhost:6379'],
    ['SMTP_URL', 'mail.example.com'],
    ['WEBHOOK_ALLOW_TARGETS', '127.0.0.1,localhost'],
    ['WEBHOOK_ALLOW_TARGETS', '10.0.0.0/33'],
    ['TRUST_PROXY', 'yes'],
    ['TRUST_PROXY', '2'],
  ])('%s=%s', (name, value) => {
    // The message names the variable so the operator knows what to fix.
    expect(refused({ [name]: value })).toThrow(new RegExp(`Invalid configuration:[\\s\\S]*${name}:`));
  });

  it('lists every bad variable at once', () => {
    let message = '';
    try {
      loadConfig({ PORT: 'x', PAYMENTS: 'y', MODERATOR: 'z' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/PORT:/);
    expect(message).toMatch(/PAYMENTS:/);
    expect(message).toMatch(/MODERATOR:/);
  });

  it('PAYMENTS names the allowed values', () => {
    expect(refused({ PAYMENTS: 'paypal' })).toThrow(/test.*stripe|stripe.*test/);
  });
});

describe('SITES', () => {
  it('parses host=kind pairs, lower-cases hosts, trims spaces', () => {
    expect(parseSites('Stories.Example=stories, ads.example = classifieds,msg.example=messages')).toEqual([
      { host: 'stories.example', kind: 'stories' },
      { host: 'ads.example', kind: 'classifieds' },
      { host: 'msg.example', kind: 'messages' },
    ]);
  });

  it('takes all four kinds and the * wildcard', () => {
    expect(parseSites('a.example=stories,b.example=messages,c.example=classifieds,*=events')).toHaveLength(4);
  });

  it('unset or blank means one stories site on any host', () => {
    expect(parseSites(undefined)).toEqual([{ host: '*', kind: 'stories' }]);
    expect(parseSites('')).toEqual([{ host: '*', kind: 'stories' }]);
    expect(loadConfig({ SITES: '  ' }).sites).toEqual([{ host: '*', kind: 'stories' }]);
  });

  it('a trailing comma is harmless', () => {
    expect(parseSites('a.example=stories,')).toEqual([{ host: 'a.example', kind: 'stories' }]);
  });

  it.each([
    ['unknown kind', 'a.example=blogs', /kind one of stories\|messages\|classifieds\|events/],
    ['missing kind', 'a.example', /expected host=kind/],
    ['missing host', '=stories', /expected host=kind/],
    ['two equals signs', 'a.example=stories=events', /expected host=kind/],
    ['a host with a port', 'a.example:8080=stories', /not a host name/],
    ['a URL instead of a host', 'https://a.example=stories', /not a host name/],
    ['the same host twice', 'a.example=stories,A.example=messages', /listed twice/],
  ])('refuses %s', (_name, value, message) => {
    expect(() => parseSites(value)).toThrow(message);
    expect(() => loadConfig({ SITES: value })).toThrow(/SITES/);
  });

  it('loadConfig uses SITES', () => {
    expect(loadConfig({ SITES: 'ads.example=classifieds' }).sites).toEqual([
      { host: 'ads.example', kind: 'classifieds' },
    ]);
  });
});

describe('isAddressOrCidr', () => {
  it.each(['127.0.0.1', '::1', '10.0.0.0/8', 'fd00::/8', '0.0.0.0/0'])('accepts %s', (v) => {
    expect(isAddressOrCidr(v)).toBe(true);
  });
  it.each(['localhost', '10.0.0.0/33', '::1/129', '10.0.0.0/8/1', '1.2.3', '10.0.0.0/x', ''])(
    'refuses %s',
    (v) => {
      expect(isAddressOrCidr(v)).toBe(false);
    },
  );
});
