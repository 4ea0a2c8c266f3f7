import { describe, expect, it } from 'vitest';
import { apiOk, registerUser, send, type TestApp, useSharedTestApp } from '../helpers/app.js';

/**
 * An owner's colours are never refused, but a save that sends a colour or the theme is told, in
 * `warnings`, which chosen colour the widget cannot show as chosen at 4.5:1 and what it shows
 * instead (docs/API-NOTES.md "Agents"); the rule is the widget's own (widget/src/shared/contrast.ts).
 */

let t: TestApp;
let token: string;
useSharedTestApp({ env: { EMBEDDINGS: 'none' } }, async (app) => {
  t = app;
  token = (await registerUser(app.app)).token;
});

const newAgent = () => apiOk(t.app, token, 'POST', '/api/chatbots', { name: 'Acme helper' });

describe('warnings about colours in the save answer', () => {
  it('emerald and amber: 200, the colours kept, the primary and accent named with what the widget shows', async () => {
    const agent = await newAgent();
    const res = await send(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, {
      primary_color: '#10b981',
      accent_color: '#f59e0b',
      widget_theme: 'light',
    });
    expect(res.statusCode, res.body).toBe(200);
    const saved = res.json();
    expect(saved).toMatchObject({ primary_color: '#10b981', accent_color: '#f59e0b' });
    // on the window's bubbles (#f3f4f6) emerald is 2.30:1; the widget darkens it there
    expect(saved.warnings).toEqual([
      {
        field: 'primary_color',
        message: expect.stringMatching(
          /^#10b981 is 2\.30:1 as the text of the starter questions and action buttons on the light scheme's background, under the 4\.5:1 text needs\. The widget shows it there as #[0-9a-f]{6} \(4\.\d\d:1\)\.$/,
        ),
      },
      {
        field: 'accent_color',
        message: expect.stringMatching(
          /^#f59e0b is 1\.95:1 as link text on the light scheme's background, under the 4\.5:1 text needs\. The widget shows it there as #[0-9a-f]{6} \(4\.\d\d:1\)\.$/,
        ),
      },
    ]);
    // the agent object itself is what GET answers: the warnings are the save's alone
    const { warnings: _, ...agentObject } = saved;
    expect(await apiOk(t.app, token, 'GET', `/api/chatbots/${agent.id}`)).toEqual(agentObject);
  });

  it('a header gradient no text reads on: the secondary is named; created with the colours, the same', async () => {
    const res = await send(t.app, token, 'POST', '/api/chatbots', {
      name: 'Night shop',
      primary_color: '#1e3a8a',
      secondary_color: '#fde047',
      accent_color: '#1e3a8a',
      widget_theme: 'light',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().warnings).toEqual([
      { field: 'secondary_color', message: expect.stringContaining('The widget ends the gradient on #') },
    ]);
  });

  it('colours that read as chosen: an empty list; a save without colours or theme: no warnings field', async () => {
    const agent = await newAgent();
    const readable = await apiOk(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, {
      primary_color: '#0f766e',
      secondary_color: '#1d4ed8',
      accent_color: '#b45309',
      widget_theme: 'light',
    });
    expect(readable.warnings).toEqual([]);
    const renamed = await apiOk(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, { name: 'Renamed' });
    expect(renamed).not.toHaveProperty('warnings');
  });

  it('the theme decides the schemes checked: the default pink accent in dark is 4.16:1, named once', async () => {
    const agent = await newAgent();
    const saved = await apiOk(t.app, token, 'PUT', `/api/chatbots/${agent.id}`, {
      primary_color: '#0f766e',
      // the pink is what a new agent's accent shows while following: kept, it is set only when said so
      accent_color: '#ec4899',
      accent_follows_primary: false,
      widget_theme: 'dark',
    });
    expect(saved.warnings.map((w: { field: string }) => w.field)).toEqual(['primary_color', 'accent_color']);
    expect(saved.warnings[1].message).toContain('#ec4899 is 4.16:1 as link text on the dark scheme');
  });
});
