import type { ChatRequest, ChatTurn, LlmProvider, StepResult, ToolCall } from './contract.js';

/** What running one tool call gave. */
export interface ToolOutcome {
  content: string;
  /** stop the turn after this call (e.g. waiting for the visitor's confirmation); the loop asks the model no more */
  pause?: boolean;
}

export interface ToolLoopOptions {
  provider: LlmProvider;
  /** with tools */
  request: ChatRequest;
  /** cap on tool calls per turn */
  maxCalls: number;
  /** only called for names in request.tools */
  execute(call: ToolCall): Promise<ToolOutcome>;
  /** when given, steps stream (provider.step); otherwise completeStep */
  onDelta?(text: string): void;
}

export interface ToolLoopResult {
  text: string;
  calls: number;
  ended: 'answered' | 'cap' | 'paused';
}

/** added to the last tool result when the cap is reached, before the model is asked without tools */
export const NO_MORE_TOOLS_NOTE = '(No more tools may be used in this turn: answer with what you have.)';

/**
 * One tool-using turn: asks the model, runs the tools it calls, gives it the results, and asks
 * again until it answers in text. A call to a tool the request does not offer gets an error result
 * (and counts). Once `maxCalls` calls were made the model is asked once more without tools, so it
 * answers (ended 'cap'); calls it makes beyond the cap in the same step are answered with an error
 * and not run. A paused outcome ends the turn at once (ended 'paused'). The text of every step is
 * concatenated; `onDelta` sees each delta as it comes. Errors of the provider (ProviderError) and
 * of `execute` leave as they are.
 */
export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult> {
  const { provider, request, maxCalls, execute, onDelta } = options;
  const offered = new Set((request.tools ?? []).map((t) => t.name));
  const messages: ChatTurn[] = [...request.messages];
  let text = '';
  let calls = 0;

  const ask = async (withTools: boolean): Promise<StepResult> => {
    const stepRequest: ChatRequest = {
      ...request,
      messages: [...messages],
      tools: withTools ? request.tools : undefined,
    };
    if (!withTools) delete stepRequest.tools;
    if (!onDelta) {
      const result = await provider.completeStep(stepRequest);
      text += result.text;
      return result;
    }
    const result: StepResult = { text: '', toolCalls: [] };
    for await (const event of provider.step(stepRequest)) {
      if (event.type === 'text') {
        result.text += event.text;
        text += event.text;
        onDelta(event.text);
      } else result.toolCalls.push(event.call);
    }
    return result;
  };

  if (maxCalls <= 0 || offered.size === 0) {
    await ask(false);
    return { text, calls, ended: 'answered' };
  }
  for (;;) {
    const step = await ask(true);
    if (step.toolCalls.length === 0) return { text, calls, ended: 'answered' };
    messages.push({ role: 'assistant', content: step.text, toolCalls: step.toolCalls });
    for (const call of step.toolCalls) {
      let content: string;
      if (calls >= maxCalls)
        content = `Error: the tool ${call.name} was not run: no more tools may be used in this turn`;
      else {
        calls++;
        if (!offered.has(call.name)) content = `Error: there is no tool named ${call.name}`;
        else {
          const outcome = await execute(call);
          if (outcome.pause) return { text, calls, ended: 'paused' };
          content = outcome.content;
        }
      }
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
    }
    if (calls >= maxCalls) {
      const last = messages.at(-1) as Extract<ChatTurn, { role: 'tool' }>;
      messages[messages.length - 1] = { ...last, content: `${last.content}\n\n${NO_MORE_TOOLS_NOTE}` };
      await ask(false);
      return { text, calls, ended: 'cap' };
    }
  }
}
