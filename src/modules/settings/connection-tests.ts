import { ApiError, conflict } from '../../platform/http/errors.js';
import type { Mailer } from '../../platform/mail/index.js';
import { usesHost } from '../../providers/llm/catalog.js';
import { ProviderError } from '../../providers/llm/errors.js';
import type { LlmProvider, ProviderName } from '../../providers/llm/types.js';
import { safeUrl } from './setting-views.js';

/** The tests the admin runs from Admin > Server settings: a provider's tiny completion, a test e-mail. */

/**
 * One tiny completion (1 token) with the provider as configured now, or as typed (`draft`); 409
 * unconfigured, 502 with the provider's error.
 */
export async function testProvider(
  name: ProviderName,
  provider: LlmProvider | null,
  model: string,
  draft = false,
): Promise<{ detail: string; model: string }> {
  if (!provider)
    throw conflict(`The ${name} provider is not configured: save a key${usesHost(name) ? ' (the host)' : ''} first.`);
  try {
    await provider.complete({
      model,
      system: '',
      messages: [{ role: 'user', content: 'Say OK.' }],
      temperature: 0,
      maxTokens: 1,
    });
  } catch (err) {
    if (err instanceof ProviderError) throw new ApiError(502, `${err.message}${providerAdvice(err)}`);
    throw err;
  }
  const typed = usesHost(name) ? 'host' : 'key';
  return {
    detail: draft
      ? `The ${name} provider answered with the ${typed} typed here (model ${model}). It is not saved yet: Save to use it.`
      : `The ${name} provider answered (model ${model}).`,
    model,
  };
}

/**
 * A test message through the mail server as configured now (`smtpUrl`: the URL in use, whose
 * secrets the error leaves out); 409 unconfigured, 502 with the server's error (no secrets).
 */
export async function testSmtp(
  mailer: Mailer,
  to: string,
  smtpUrl: string | undefined,
): Promise<{ detail: string; to: string }> {
  if (!mailer.configured) throw conflict('E-mail is not configured: save an SMTP URL first.');
  try {
    await mailer.send({
      to,
      subject: 'Test message from your chat agent server',
      text: 'This is a test message sent from Admin > Server settings. E-mail works: lead alerts and password reset links can go out.',
    });
  } catch (err) {
    throw new ApiError(502, `The mail server did not take the test message: ${withoutSecrets(err, smtpUrl)}`);
  }
  return { detail: `A test message was sent to ${to}.`, to };
}

/** What to check, by the kind of failure. */
function providerAdvice(err: ProviderError): string {
  if (err.kind === 'http' && (err.status === 401 || err.status === 403)) return ': the key was refused.';
  if (err.kind === 'http' && err.status === 404) return ': check the base URL, and that the model exists there.';
  if (err.kind === 'unreachable') return ': check the base URL or host.';
  return '.';
}

/** A mail error's message, one line, with the URL's user name and password taken out. */
function withoutSecrets(err: unknown, url: string | undefined): string {
  let message = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim() || 'unknown error';
  if (url) {
    try {
      const parsed = new URL(url);
      message = message.split(url).join(safeUrl(url) ?? 'the SMTP URL');
      for (const secret of [parsed.password, decodeURIComponent(parsed.password)]) {
        if (secret.length > 0) message = message.split(secret).join('***');
      }
    } catch {
      /* not a URL: nothing to take out */
    }
  }
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}
