/**
 * A provider failed. The message is safe to show a client: it names the provider and the kind of
 * failure (status, timeout, unreachable), never the key, the URL or a stack.
 */
export class ProviderError extends Error {
  constructor(
    /** the provider's catalog name (a ProviderName; a plain string here so the adapters need not import the catalog) */
    readonly provider: string,
    readonly kind: 'timeout' | 'unreachable' | 'http' | 'aborted' | 'invalid-response',
    readonly status?: number,
  ) {
    super(describe(provider, kind, status));
    this.name = 'ProviderError';
  }
}

function describe(provider: string, kind: ProviderError['kind'], status?: number): string {
  switch (kind) {
    case 'timeout':
      return `The ${provider} provider did not answer in time`;
    case 'unreachable':
      return `The ${provider} provider could not be reached`;
    case 'aborted':
      return `The ${provider} request was cancelled`;
    case 'invalid-response':
      return `The ${provider} provider sent a response that could not be read`;
    case 'http':
      return `The ${provider} provider answered with an error${status ? ` (HTTP ${status})` : ''}`;
  }
}
