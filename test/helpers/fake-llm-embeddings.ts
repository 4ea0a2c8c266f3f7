// The fake LLM servers' embeddings (test/helpers/fake-llm.ts): the deterministic vector of a text,
// and each provider's answer to an embedding request in its wire format.
import type { FakeBehaviour, FakeProviderName } from './fake-llm.js';

/** Deterministic pseudo-random unit vector for `text` (float32 values). */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  let seed = 2166136261;
  for (let i = 0; i < text.length; i++) seed = Math.imul(seed ^ text.charCodeAt(i), 16777619) >>> 0;
  const values: number[] = [];
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    seed >>>= 0;
    const v = seed / 4294967296 - 0.5;
    values.push(v);
    norm += v * v;
  }
  norm = Math.sqrt(norm) || 1;
  return values.map((v) => Math.fround(v / norm));
}

/** The answer to an embedding request, in `provider`'s wire format. */
export function embeddingAnswer(ask: {
  provider: FakeProviderName;
  model: string;
  /** the request's parsed JSON body */
  body: any;
  /** google: which embed endpoint */
  op?: string;
  behaviour: Pick<FakeBehaviour, 'embed' | 'embeddingDimensions'>;
}): unknown {
  const { body, behaviour } = ask;
  const vector = (text: string, dims: unknown) =>
    behaviour.embed(text, typeof dims === 'number' ? dims : behaviour.embeddingDimensions).map((v) => Math.fround(v));
  switch (ask.provider) {
    case 'openai': {
      const inputs: string[] = Array.isArray(body?.input) ? body.input : [body?.input ?? ''];
      const base64 = body?.encoding_format === 'base64';
      return {
        object: 'list',
        model: ask.model,
        data: inputs.map((text, index) => {
          const v = vector(String(text), body?.dimensions);
          return {
            object: 'embedding',
            index,
            embedding: base64 ? Buffer.from(Float32Array.from(v).buffer).toString('base64') : v,
          };
        }),
        usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
      };
    }
    case 'google': {
      const textOf = (content: any) =>
        ((content?.parts ?? []) as Array<{ text?: string }>).map((p) => p.text ?? '').join('');
      if (ask.op === 'embedContent')
        return { embedding: { values: vector(textOf(body?.content), body?.outputDimensionality) } };
      const items: any[] = Array.isArray(body?.requests) ? body.requests : [];
      return { embeddings: items.map((r) => ({ values: vector(textOf(r?.content), r?.outputDimensionality) })) };
    }
    case 'ollama': {
      const inputs: string[] = Array.isArray(body?.input) ? body.input : [body?.input ?? ''];
      return {
        model: ask.model,
        embeddings: inputs.map((text) => vector(String(text), body?.dimensions)),
        total_duration: 1000,
        load_duration: 10,
        prompt_eval_count: inputs.length,
      };
    }
    case 'anthropic':
      return {};
  }
}
