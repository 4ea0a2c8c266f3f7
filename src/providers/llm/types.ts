/**
 * The LLM types the rest of the app uses: the adapters' contract (contract.ts) and the names of
 * the providers of catalog.ts (derived there, so adding a provider is adding its file).
 */
export type { ProviderName } from './catalog.js';
export type {
  ChatRequest,
  ChatTurn,
  LlmProvider,
  ProviderConnectionSpec,
  ProviderDefinition,
  ProviderSettings,
  StepEvent,
  StepResult,
  ToolCall,
  ToolSpec,
} from './contract.js';
export type { ToolLoopOptions, ToolLoopResult, ToolOutcome } from './tool-loop.js';
