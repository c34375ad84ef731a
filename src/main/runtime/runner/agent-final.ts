// What the `agent` call's final says about a finished run (reference §2.3). A run that ended on a failed model
// call still completed: OpenClaw's embedded run turns the provider's error into an `isError` reply payload
// after whatever the model wrote before it failed, and its `agent` RPC answers ok with those payloads (the
// run's own outcome, `error`, is what lifecycle and `agent.wait` report). Only a run that could not do its
// work (no key, a transcript it could not write, …) ends the call with an error.
import type { AgentFinal } from '../../../shared/methods'
import type { RunOutcome } from './embedded-runner'

export function agentFinalOf(runId: string, o: Pick<RunOutcome, 'status' | 'summary' | 'payloads' | 'meta' | 'errorReply'>): AgentFinal {
  const result = { payloads: o.payloads, meta: o.meta }
  return o.status === 'ok' || o.errorReply
    ? { runId, status: 'ok', summary: 'completed', result }
    : { runId, status: 'error', summary: o.summary, result }
}
