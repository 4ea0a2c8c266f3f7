import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config/index.js';
import { useTempDirs } from './helpers/temp.js';

/**
 * docs/API.md "Plans": the built-in table, written out here so a drift in the code is caught; plus
 * max_storage_mb (issue 20.4), webhook_deliveries_per_hour (issue 31.4) and max_members (issue 34.1), monthly_action_runs (issue 35), max_tests_per_agent (issue 38.3),
 * beyond the spec.
 */
const CONTRACT_PLANS = {
  free: {
    max_agents: 3,
    max_account_leads: 100,
    monthly_messages: 1000,
    requests_per_minute: 60,
    requests_per_hour: 1000,
    custom_branding: false,
    max_storage_mb: 200,
    webhook_deliveries_per_hour: 50,
    max_members: 2,
    monthly_action_runs: 100,
    max_tests_per_agent: 50,
  },
  starter: {
    max_agents: 10,
    max_account_leads: 1000,
    monthly_messages: 10000,
    requests_per_minute: 120,
    requests_per_hour: 5000,
    custom_branding: true,
    max_storage_mb: 2000,
    webhook_deliveries_per_hour: 500,
    max_members: 5,
    monthly_action_runs: 2000,
    max_tests_per_agent: 200,
  },
  pro: {
    max_agents: 50,
    max_account_leads: 10000,
    monthly_messages: 100000,
    requests_per_minute: 300,
    requests_per_hour: 20000,
    custom_branding: true,
    max_storage_mb: 20000,
    webhook_deliveries_per_hour: 5000,
    max_members: 20,
    monthly_action_runs: 20000,
    max_tests_per_agent: 1000,
  },
};

const { tempDir } = useTempDirs('chat-agent-config-');

/** loadConfig must throw a ConfigError whose message is one line naming `variable`. */
function expectConfigError(env: Record<string, string>, variable: string): ConfigError {
  let thrown: unknown;
  try {
    loadConfig({ DATA_DIR: tempDir(), ...env });
  } catch (err) {
    thrown = err;
  }
  expect(thrown, `${JSON.stringify(env)} should be refused`).toBeInstanceOf(ConfigError);
  const message = (thrown as ConfigError).message;
  expect(message).toContain(variable);
  expect(message.trim()).not.toMatch(/[\r\n]/);
  expect(message.length).toBeLessThan(500);
  return thrown as ConfigError;
}

function writeJson(dir: string, name: string, content: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('loadConfig defaults', () => {
  it('makes DATA_DIR private to its owner (0700), created or already there', () => {
    const previous = process.umask(0o022);
    try {
      const parent = tempDir();
      const fresh = path.join(parent, 'new-data');
      loadConfig({ DATA_DIR: fresh });
      expect(statSync(fresh).mode & 0o777).toBe(0o700);
      const existing = path.join(parent, 'old-data');
      mkdirSync(existing, { mode: 0o755 });
      loadConfig({ DATA_DIR: existing });
      expect(statSync(existing).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(previous);
    }
  });

  it('gives the CONTRACT defaults with nothing but DATA_DIR set', () => {
    const dataDir = tempDir();
    const c = loadConfig({ DATA_DIR: dataDir });
    expect(c.port).toBe(3000);
    expect(c.host).toBe('0.0.0.0');
    expect(c.dataDir).toBe(path.resolve(dataDir));
    expect(path.dirname(c.databaseFile)).toBe(path.resolve(dataDir));
    expect(c.publicUrl).toBe('http://localhost:3000');
    expect(c.sessionIdleTimeoutS).toBe(86400);
    expect(c.sessionMaxAgeS).toBe(2592000);
    expect(c.registration).toBe('first-only');
    expect(c.defaultPlan).toBe('free');
    // docs/API.md's three plans, plus `owner` for the first account (issue 22.3)
    const { owner, ...contract } = c.plans;
    expect(contract).toEqual(CONTRACT_PLANS);
    expect(owner).toMatchObject({
      max_agents: 1_000_000_000,
      monthly_messages: 1_000_000_000,
      max_storage_mb: 1_000_000_000,
      webhook_deliveries_per_hour: 100_000,
      max_members: 1_000_000_000,
      monthly_action_runs: 1_000_000_000,
      custom_branding: true,
    });
    expect(c.firstAccountPlan).toBe('owner');
    expect(c.embeddings).toBe('none');
    expect(c.allowPrivateUrls).toBe(false);
    expect(c.trustProxy).toBe(false);
    expect(c.logLevel).toBe('info');
    expect(c.providers.openai.apiKey).toBeUndefined();
    expect(c.providers.anthropic.apiKey).toBeUndefined();
    expect(c.providers.google.apiKey).toBeUndefined();
    expect(c.providers.ollama.host).toBeUndefined();
    expect(c.backup).toEqual({ intervalMs: 0, keep: 7, dir: path.join(path.resolve(dataDir), 'backups') });
  });

  it('FIRST_ACCOUNT_PLAN: owner with the built-in table, DEFAULT_PLAN when that is set or the table has no owner plan, and it must exist', () => {
    const dir = tempDir();
    const file = path.join(dir, 'plans.json');
    writeFileSync(file, JSON.stringify({ basic: CONTRACT_PLANS.free, plus: CONTRACT_PLANS.pro }));
    expect(loadConfig({ DATA_DIR: tempDir(), PLANS_FILE: file, DEFAULT_PLAN: 'basic' }).firstAccountPlan).toBe('basic');
    expect(
      loadConfig({ DATA_DIR: tempDir(), PLANS_FILE: file, DEFAULT_PLAN: 'basic', FIRST_ACCOUNT_PLAN: 'plus' })
        .firstAccountPlan,
    ).toBe('plus');
    expect(loadConfig({ DATA_DIR: tempDir(), FIRST_ACCOUNT_PLAN: 'pro' }).firstAccountPlan).toBe('pro');
    // an operator who names DEFAULT_PLAN decides for the first account too
    expect(loadConfig({ DATA_DIR: tempDir(), DEFAULT_PLAN: 'starter' }).firstAccountPlan).toBe('starter');
    expect(() => loadConfig({ DATA_DIR: tempDir(), FIRST_ACCOUNT_PLAN: 'gold' })).toThrow(
      /FIRST_ACCOUNT_PLAN: no plan named "gold"/,
    );
  });

  it('takes BACKUP_INTERVAL_H in hours (fractions allowed) and BACKUP_KEEP', () => {
    const c = loadConfig({ DATA_DIR: tempDir(), BACKUP_INTERVAL_H: '0.5', BACKUP_KEEP: '3' });
    expect(c.backup.intervalMs).toBe(30 * 60 * 1000);
    expect(c.backup.keep).toBe(3);
  });

  it('derives PUBLIC_URL from PORT and takes an explicit one without its trailing slash', () => {
    expect(loadConfig({ DATA_DIR: tempDir(), PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ DATA_DIR: tempDir(), PUBLIC_URL: 'https://bots.example.com/' }).publicUrl).toBe(
      'https://bots.example.com',
    );
  });

  it('says whether PUBLIC_URL was set (empty counts as unset)', () => {
    expect(loadConfig({ DATA_DIR: tempDir() }).publicUrlConfigured).toBe(false);
    expect(loadConfig({ DATA_DIR: tempDir(), PUBLIC_URL: '' }).publicUrlConfigured).toBe(false);
    expect(loadConfig({ DATA_DIR: tempDir(), PUBLIC_URL: 'https://bots.example.com' }).publicUrlConfigured).toBe(true);
  });

  it('accepts PORT=0 (pick a free port)', () => {
    expect(loadConfig({ DATA_DIR: tempDir(), PORT: '0' }).port).toBe(0);
  });

  it('treats empty strings as unset', () => {
    const c = loadConfig({ DATA_DIR: tempDir(), PORT: '', REGISTRATION: '', OPENAI_API_KEY: '' });
    expect(c.port).toBe(3000);
    expect(c.registration).toBe('first-only');
    expect(c.embeddings).toBe('none');
  });

  it('uses openai embeddings when OPENAI_API_KEY is set, unless EMBEDDINGS says otherwise', () => {
    const c = loadConfig({ DATA_DIR: tempDir(), OPENAI_API_KEY: 'sk-test' });
    expect(c.embeddings).toBe('openai');
    expect(c.providers.openai.apiKey).toBe('sk-test');
    expect(loadConfig({ DATA_DIR: tempDir(), OPENAI_API_KEY: 'sk-test', EMBEDDINGS: 'none' }).embeddings).toBe('none');
    expect(
      loadConfig({ DATA_DIR: tempDir(), EMBEDDINGS: 'ollama', OLLAMA_HOST: 'http://127.0.0.1:11434' }).embeddings,
    ).toBe('ollama');
  });

  it('parses the explicit values it is given', () => {
    const c = loadConfig({
      DATA_DIR: tempDir(),
      PORT: '8081',
      HOST: '127.0.0.1',
      REGISTRATION: 'open',
      SESSION_IDLE_TIMEOUT_S: '60',
      SESSION_MAX_AGE_S: '3600',
      ALLOW_PRIVATE_URLS: 'true',
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'warn',
      DEFAULT_PLAN: 'pro',
    });
    expect(c).toMatchObject({
      port: 8081,
      host: '127.0.0.1',
      registration: 'open',
      sessionIdleTimeoutS: 60,
      sessionMaxAgeS: 3600,
      allowPrivateUrls: true,
      trustProxy: 1,
      logLevel: 'warn',
      defaultPlan: 'pro',
    });
  });

  it('does not read process.env when given an environment object', () => {
    const saved = process.env.REGISTRATION;
    process.env.REGISTRATION = 'closed';
    try {
      expect(loadConfig({ DATA_DIR: tempDir() }).registration).toBe('first-only');
    } finally {
      if (saved === undefined) delete process.env.REGISTRATION;
      else process.env.REGISTRATION = saved;
    }
  });
});

describe('loadConfig refuses bad values with one line naming the variable', () => {
  const cases: Array<[string, Record<string, string>]> = [
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '-1' }],
    ['PORT', { PORT: '80.5' }],
    ['REGISTRATION', { REGISTRATION: 'maybe' }],
    ['JWT_SECRET', { JWT_SECRET: 'x'.repeat(31) }],
    ['SESSION_IDLE_TIMEOUT_S', { SESSION_IDLE_TIMEOUT_S: '0' }],
    ['SESSION_IDLE_TIMEOUT_S', { SESSION_IDLE_TIMEOUT_S: 'soon' }],
    ['SESSION_MAX_AGE_S', { SESSION_MAX_AGE_S: '-5' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['ALLOW_PRIVATE_URLS', { ALLOW_PRIVATE_URLS: 'perhaps' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'sometimes' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.1, proxy.local' }],
    ['TRUST_PROXY', { TRUST_PROXY: '99' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'ftp://x' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'not a url' }],
    ['EMBEDDINGS', { EMBEDDINGS: 'magic' }],
    ['EMBEDDINGS', { EMBEDDINGS: 'openai' }], // without OPENAI_API_KEY
    ['EMBEDDINGS', { EMBEDDINGS: 'google' }], // without GEMINI_API_KEY
    ['LLM_TIMEOUT_S', { LLM_TIMEOUT_S: '0' }],
    ['OLLAMA_HOST', { OLLAMA_HOST: 'localhost:11434' }],
    ['DEFAULT_PLAN', { DEFAULT_PLAN: 'nonexistent' }],
    ['BACKUP_INTERVAL_H', { BACKUP_INTERVAL_H: '-1' }],
    ['BACKUP_INTERVAL_H', { BACKUP_INTERVAL_H: 'daily' }],
    ['BACKUP_INTERVAL_H', { BACKUP_INTERVAL_H: '1000' }],
    ['BACKUP_KEEP', { BACKUP_KEEP: '0' }],
    ['BACKUP_KEEP', { BACKUP_KEEP: '2.5' }],
  ];
  for (const [variable, env] of cases) {
    it(`${variable}=${JSON.stringify(Object.values(env)[0]).slice(0, 40)}`, () => {
      expectConfigError(env, variable);
    });
  }

  it('counts JWT_SECRET length in bytes, not characters', () => {
    // 16 two-byte characters = 32 bytes: long enough
    const c = loadConfig({ DATA_DIR: tempDir(), JWT_SECRET: 'é'.repeat(16) });
    expect(c.jwtSecret.byteLength).toBe(32);
    // 15 two-byte characters = 30 bytes: too short
    expectConfigError({ JWT_SECRET: 'é'.repeat(15) }, 'JWT_SECRET');
  });

  it('PLANS_FILE that does not exist', () => {
    expectConfigError({ PLANS_FILE: path.join(tempDir(), 'no-such-plans.json') }, 'PLANS_FILE');
  });

  it('PLANS_FILE that is not JSON', () => {
    const dir = tempDir();
    expectConfigError({ PLANS_FILE: writeJson(dir, 'plans.json', '{ free: {max_agents: 3,\n}') }, 'PLANS_FILE');
  });

  it('PLANS_FILE of the wrong shape', () => {
    const dir = tempDir();
    const bad: unknown[] = [
      [],
      {},
      'free',
      { free: { ...CONTRACT_PLANS.free, max_agents: '3' } },
      { free: { ...CONTRACT_PLANS.free, max_agents: -1 } },
      { free: { ...CONTRACT_PLANS.free, custom_branding: 'no' } },
      { free: { ...CONTRACT_PLANS.free, webhook_deliveries_per_hour: -1 } },
      { free: { ...CONTRACT_PLANS.free, webhook_deliveries_per_hour: 2.5 } },
      { free: (({ monthly_messages: _m, ...rest }) => rest)(CONTRACT_PLANS.free) },
    ];
    for (const [i, content] of bad.entries()) {
      expectConfigError({ PLANS_FILE: writeJson(dir, `plans-${i}.json`, JSON.stringify(content)) }, 'PLANS_FILE');
    }
  });
});

describe('PLANS_FILE', () => {
  const custom = {
    hobby: {
      max_agents: 1,
      max_account_leads: 5,
      monthly_messages: 50,
      requests_per_minute: 10,
      requests_per_hour: 100,
      custom_branding: false,
      max_storage_mb: 20,
      webhook_deliveries_per_hour: 30,
      max_members: 0,
      monthly_action_runs: 7,
      max_tests_per_agent: 3,
    },
    // written before max_storage_mb, webhook_deliveries_per_hour, max_members and monthly_action_runs existed
    business: {
      max_agents: 500,
      max_account_leads: 100000,
      monthly_messages: 1000000,
      requests_per_minute: 1000,
      requests_per_hour: 50000,
      custom_branding: true,
    },
  };

  it('replaces the built-in table whole; a plan without max_storage_mb gets 1000, without webhook_deliveries_per_hour 1000, without max_members 5, without monthly_action_runs 1000, without max_tests_per_agent 200', () => {
    const dir = tempDir();
    const c = loadConfig({ DATA_DIR: dir, PLANS_FILE: writeJson(dir, 'plans.json', custom), DEFAULT_PLAN: 'hobby' });
    expect(c.plans).toEqual({
      hobby: custom.hobby,
      business: {
        ...custom.business,
        max_storage_mb: 1000,
        webhook_deliveries_per_hour: 1000,
        max_members: 5,
        monthly_action_runs: 1000,
        max_tests_per_agent: 200,
      },
    });
    expect(Object.keys(c.plans).sort()).toEqual(['business', 'hobby']);
    expect(c.defaultPlan).toBe('hobby');
  });

  it('without a plan named by DEFAULT_PLAN is refused (naming DEFAULT_PLAN)', () => {
    const dir = tempDir();
    // the default DEFAULT_PLAN is `free`, which this file does not define
    expectConfigError({ PLANS_FILE: writeJson(dir, 'plans.json', custom) }, 'DEFAULT_PLAN');
  });
});

describe('JWT secret', () => {
  it('is generated once into DATA_DIR/jwt-secret with mode 0600 and reused on the next load', () => {
    const dataDir = tempDir();
    const first = loadConfig({ DATA_DIR: dataDir });
    const file = path.join(dataDir, 'jwt-secret');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.jwtSecret.byteLength).toBeGreaterThanOrEqual(32);
    const onDisk = readFileSync(file);

    const second = loadConfig({ DATA_DIR: dataDir });
    expect(Buffer.from(second.jwtSecret).equals(Buffer.from(first.jwtSecret))).toBe(true);
    // the file was not rewritten
    expect(readFileSync(file).equals(onDisk)).toBe(true);

    // a different DATA_DIR gets a different secret
    const other = loadConfig({ DATA_DIR: tempDir() });
    expect(Buffer.from(other.jwtSecret).equals(Buffer.from(first.jwtSecret))).toBe(false);
  });

  it('uses JWT_SECRET when given instead of the file', () => {
    const dataDir = tempDir();
    const generated = loadConfig({ DATA_DIR: dataDir });
    const given = 'a-given-secret-that-is-long-enough-0123456789';
    const c = loadConfig({ DATA_DIR: dataDir, JWT_SECRET: given });
    expect(Buffer.from(c.jwtSecret).toString('utf8')).toBe(given);
    expect(Buffer.from(c.jwtSecret).equals(Buffer.from(generated.jwtSecret))).toBe(false);
  });

  it('refuses a jwt-secret file that holds too short a secret', () => {
    const dataDir = tempDir();
    writeFileSync(path.join(dataDir, 'jwt-secret'), 'short\n', { mode: 0o600 });
    let thrown: unknown;
    try {
      loadConfig({ DATA_DIR: dataDir });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toContain('JWT_SECRET');
  });
});

describe('DATA_DIR', () => {
  it('is created (with parents) when missing', () => {
    const base = tempDir();
    const dataDir = path.join(base, 'a', 'b', 'data');
    expect(existsSync(dataDir)).toBe(false);
    const c = loadConfig({ DATA_DIR: dataDir });
    expect(statSync(dataDir).isDirectory()).toBe(true);
    expect(c.dataDir).toBe(dataDir);
  });

  it('that cannot be created is refused naming DATA_DIR', () => {
    const base = tempDir();
    const file = path.join(base, 'a-file');
    writeFileSync(file, 'not a directory');
    expectConfigError({ DATA_DIR: path.join(file, 'data') }, 'DATA_DIR');
  });
});
