import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readOpenApi } from '../../scripts/gen-admin-types.js';
import { FIELD_MAX } from '../../src/modules/field-limits.js';

/**
 * A field's longest length has one home, src/modules/field-limits.ts (issue 32): the routes' schemas
 * read it, so /openapi.json states it, and the admin UI's inputs take their maxLength from it
 * instead of a number copied into JSX.
 */
type Schema = { maxLength?: number; properties?: Record<string, Schema>; additionalProperties?: Schema } & Record<
  string,
  unknown
>;

let doc: { paths: Record<string, Record<string, { requestBody?: unknown; parameters?: unknown[] }>> };

beforeAll(async () => {
  doc = (await readOpenApi()) as typeof doc;
});

function bodyField(route: string, method: string, field: string): Schema {
  const body = doc.paths[route]?.[method]?.requestBody as
    | { content: { 'application/json': { schema: Schema } } }
    | undefined;
  const schema = body?.content['application/json'].schema.properties?.[field];
  if (!schema) throw new Error(`${method} ${route}: no body field ${field}`);
  return schema;
}

const maxLength = (route: string, method: string, field: string) => bodyField(route, method, field).maxLength;

describe('field lengths: one home for the server and the admin UI', () => {
  it("an agent's fields", () => {
    const route = '/api/chatbots/{chatbot_id}';
    const agent = FIELD_MAX.agent;
    expect(maxLength(route, 'put', 'name')).toBe(agent.name);
    expect(maxLength(route, 'put', 'description')).toBe(agent.description);
    expect(maxLength(route, 'put', 'model')).toBe(agent.model);
    expect(maxLength(route, 'put', 'instructions')).toBe(agent.instructions);
    expect(maxLength(route, 'put', 'welcome_message')).toBe(agent.welcome_message);
    expect(maxLength(route, 'put', 'font_family')).toBe(agent.font_family);
    expect(JSON.stringify(bodyField(route, 'put', 'no_answer_message'))).toContain(
      `"maxLength":${agent.no_answer_message}`,
    );
    // the logo, avatar and privacy policy URLs read FIELD_MAX.agent.url too; their pipe hides it from the document
    expect(JSON.stringify(bodyField(route, 'put', 'powered_by_text'))).toContain(
      `"maxLength":${agent.powered_by_text}`,
    );
    expect(JSON.stringify(bodyField(route, 'put', 'lead_consent_text'))).toContain(
      `"maxLength":${agent.lead_consent_text}`,
    );
    expect(JSON.stringify(bodyField(route, 'put', 'unavailable_message'))).toContain(
      `"maxLength":${agent.unavailable_message}`,
    );
    expect(JSON.stringify(bodyField(route, 'put', 'greeting_message'))).toContain(
      `"maxLength":${agent.greeting_message}`,
    );
    expect(JSON.stringify(bodyField(route, 'put', 'widget_texts'))).toContain(`"maxLength":${agent.widget_text}`);
    expect(JSON.stringify(bodyField(route, 'put', 'email_alert_address'))).toContain(`"maxLength":${FIELD_MAX.email}`);
  });

  it('accounts, leads, knowledge, webhooks, server settings, conversation search', () => {
    expect(maxLength('/api/auth/register', 'post', 'name')).toBe(FIELD_MAX.account_name);
    expect(maxLength('/api/auth/register', 'post', 'password')).toBe(FIELD_MAX.password);
    expect(maxLength('/api/auth/password', 'post', 'new_password')).toBe(FIELD_MAX.password);
    expect(maxLength('/api/leads', 'post', 'name')).toBe(FIELD_MAX.lead.name);
    expect(maxLength('/api/leads', 'post', 'contact')).toBe(FIELD_MAX.lead.contact);
    expect(maxLength('/api/sources/chatbot/{chatbot_id}/qa', 'post', 'question')).toBe(FIELD_MAX.source.qa_question);
    expect(maxLength('/api/sources/chatbot/{chatbot_id}/qa', 'post', 'answer')).toBe(FIELD_MAX.source.qa_answer);
    expect(maxLength('/api/webhooks', 'post', 'url')).toBe(FIELD_MAX.webhook_url);
    const provider = '/api/admin/settings/providers/{provider}';
    expect(maxLength(provider, 'put', 'api_key')).toBe(FIELD_MAX.settings.api_key);
    expect(JSON.stringify(bodyField(provider, 'put', 'base_url'))).toContain(
      `"maxLength":${FIELD_MAX.settings.base_url}`,
    );
    expect(maxLength('/api/admin/settings/smtp', 'put', 'url')).toBe(FIELD_MAX.settings.smtp_url);
    expect(JSON.stringify(bodyField('/api/admin/settings/smtp', 'put', 'from'))).toContain(
      `"maxLength":${FIELD_MAX.settings.smtp_from}`,
    );
    const search = (doc.paths['/api/chat/conversations/{chatbot_id}']?.get?.parameters ?? []) as Array<{
      name: string;
      schema: Schema;
    }>;
    expect(search.find((p) => p.name === 'q')?.schema.maxLength).toBe(FIELD_MAX.conversation_search);
  });

  it('the admin UI copies no length into JSX: every maxLength reads FIELD_MAX (a colour box’s #rrggbb aside)', () => {
    const root = path.resolve(import.meta.dirname, '..', '..', 'admin-ui', 'src');
    const copied: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (entry.name.endsWith('.tsx'))
          for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries())
            if (/maxLength=\{\d+\}/.test(line) && !line.includes('maxLength={7}'))
              copied.push(`${path.relative(root, file)}:${i + 1}`);
      }
    };
    walk(root);
    expect(copied).toEqual([]);
  });
});
