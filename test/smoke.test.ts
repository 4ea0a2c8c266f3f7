import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createAgent, registerUser, startTestApp, type TestApp } from './helpers/app.js';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.cleanup());

  it('registers, creates and lists an agent', async () => {
    const { token } = await registerUser(t.app);
    const agent = await createAgent(t.app, token);
    expect(agent.status).toBe('active');
    const list = await t.app.inject({ method: 'GET', url: '/api/chatbots', headers: auth(token) });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toHaveLength(1);
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(token) });
    expect(me.json()).not.toHaveProperty('password_hash');
    expect(me.json().role).toBe('admin');
  });
});
