// Validates params against the method table and calls the handler. Used by the IPC shell and the gateway.
import { Compile } from 'typebox/compile'
import { Schemas, type MethodName, type ParamsOf, type Result, type ResultOf } from '../../shared/methods'
import { ApiError, invalid, toErrorShape } from './errors'
import { nestingProblem } from '../../shared/nesting-limit'

export interface CallContext {
  transport: 'ipc' | 'ws' | 'local'
  /** gateway connection id (ws only) */
  connId?: string
  /**
   * set when the caller may stop only some runs (a gateway connection without operator.admin: the runs it
   * started); absent, every run may be stopped
   */
  mayAbort?: (runId: string) => boolean
  /**
   * false when the caller lacks the scope sessions.patch needs (a gateway connection without operator.admin):
   * sessions.create may then make a session with settings but not change an existing one's (OpenClaw's
   * allowExistingModelSelection); absent, it may
   */
  maySetExistingSession?: boolean
  /** aborted when the caller went away (its gateway connection closed): a handler that waits stops waiting */
  signal?: AbortSignal
  /**
   * called by a run-starting method that answered from a key already seen (a dedupe replay, a run already in
   * flight): no run was started by this call, so the caller does not become its owner (gateway run-owners.ts)
   */
  replayed?: () => void
  /** an `agent` request the gateway's socket thread acked already, at this time: the run's acceptedAt is that one */
  ackedAt?: number
}

export type Handler<M extends MethodName> = (params: ParamsOf<M>, ctx: CallContext) => Promise<ResultOf<M>>
export type Handlers = { [M in MethodName]: Handler<M> }

export type Validator = ReturnType<typeof Compile>
const validators = new Map<MethodName, Validator>()

function validatorFor(method: MethodName): Validator {
  let v = validators.get(method)
  if (!v) {
    v = Compile(Schemas[method])
    validators.set(method, v)
  }
  return v
}

export const isMethodName = (m: unknown): m is MethodName =>
  typeof m === 'string' && Object.prototype.hasOwnProperty.call(Schemas, m)

/**
 * A readable list of a compiled schema's violations ("/deviceId: must be string", "/: unexpected property
 * 'foo'"), or undefined when the value passes. Every params check — the method table's and the gateway's
 * own methods' — words its refusal this way.
 */
export function schemaProblem(v: Validator, params: unknown): string | undefined {
  if (v.Check(params)) return undefined
  const errs = [...v.Errors(params)]
    .filter((e) => e.keyword !== 'boolean')
    .slice(0, 8)
    .map((e) => {
      const extra = (e.params as { additionalProperties?: string[] }).additionalProperties
      const where = e.instancePath || '/'
      return extra ? `${where}: unexpected property ${extra.map((x) => `'${x}'`).join(', ')}` : `${where}: ${e.message}`
    })
  return errs.join('; ') || 'invalid params'
}

/** Returns a readable list of schema violations, or undefined when params are valid. */
export function validateParams(method: MethodName, params: unknown): string | undefined {
  return schemaProblem(validatorFor(method), params)
}

export async function dispatch<M extends MethodName>(
  handlers: Handlers,
  method: M,
  params: unknown,
  ctx: CallContext,
): Promise<Result<ResultOf<M>>> {
  try {
    if (!isMethodName(method)) throw invalid(`unknown method: ${String(method)}`)
    const p = params === undefined ? {} : params
    // before anything walks them (the schema check, a config merge): a value nested ~100k deep runs the stack out
    const deep = nestingProblem(p)
    if (deep) throw invalid(`invalid ${method} params: ${deep}`, { code: 'TOO_DEEP' })
    const problem = validateParams(method, p)
    if (problem) throw invalid(`invalid ${method} params: ${problem}`)
    const data = await (handlers[method] as Handler<M>)(p as ParamsOf<M>, ctx)
    return { ok: true, data }
  } catch (err) {
    return { ok: false, error: toErrorShape(err) }
  }
}

export { ApiError }
