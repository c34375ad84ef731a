// OpenClaw's fast mode in Loopdesk: which speed a model call asks for. The mode of a run is chat.send's
// per-message `fastMode` over the session's (sessions.patch / sessions.create); none = the request is left as
// the provider's default. `"auto"` is fast for model calls that START within `fastAutoOnSeconds` (default 60)
// of the run's start, later calls (tool-result turns, retries of a long turn) go at normal speed — a long
// background turn stops paying for speed once nobody is waiting on its first reply.
//
// A fast call maps onto the provider's own speed knob, only on the providers' own APIs (by provider id; their
// base URL may point at a proxy of the same API): OpenAI / OpenAI Codex Responses → `service_tier: "priority"`;
// Anthropic Messages → `service_tier: "auto"` (may use priority capacity), and `"standard_only"` when a mode was
// chosen but is off for this call. Every other provider has no such knob: the mode is recorded, the request unchanged.
import type { FastMode } from '../../../shared/methods'

export const DEFAULT_FAST_AUTO_ON_SECONDS = 60

/** Whether a model call starting `elapsedMs` after the run's start is fast; undefined when no mode was chosen. */
export function fastForCall(mode: FastMode | undefined, elapsedMs: number, autoOnSeconds = DEFAULT_FAST_AUTO_ON_SECONDS): boolean | undefined {
  if (mode === undefined) return undefined
  if (mode === 'auto') return elapsedMs < autoOnSeconds * 1000
  return mode
}

const OPENAI_RESPONSES = new Set(['openai-responses', 'openai-codex-responses'])

/** The request's `service_tier` for this call, or undefined to leave the request as it is. */
export function serviceTierFor(model: { api: string; provider: string }, fast: boolean | undefined): string | undefined {
  if (fast === undefined) return undefined
  if ((model.provider === 'openai' || model.provider === 'openai-codex') && OPENAI_RESPONSES.has(model.api)) return fast ? 'priority' : undefined
  if (model.provider === 'anthropic' && model.api === 'anthropic-messages') return fast ? 'auto' : 'standard_only'
  return undefined
}
