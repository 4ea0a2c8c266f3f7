import { expect } from 'vitest';
import { ProviderError } from '../../src/providers/llm/index.js';

/** The ProviderError `work` rejects with; fails the test when it resolves or rejects with something else. */
export async function providerError(work: Promise<unknown>): Promise<ProviderError> {
  try {
    await work;
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error('expected a ProviderError, but the work resolved');
}
