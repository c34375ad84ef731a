// What an accepted message's run was asked for besides its text (thinking, timeout, model, …), kept in the
// accepted-message journal so a message restored after a restart (a paused follow-up) starts the way the
// original `agent` / `chat.send` request said, not with the defaults. Only what a run's input uses; read back
// field by field, so an older line without it, or a field of the wrong type, only falls back to the default.
import { THINKING_LEVELS, type ThinkingLevel } from '../../../shared/config-values'
import type { SavedAttachment } from '../attachments'
import type { RunInput, RunRequest } from './embedded-runner'

export type AcceptedRun = Pick<
  RunRequest,
  'thinking' | 'timeoutMs' | 'extraSystemPrompt' | 'bootstrapContextMode' | 'lane' | 'model' | 'sessionModel' | 'attachments' | 'fastMode' | 'fastAutoOnSeconds' | 'input'
>

const KEYS = ['thinking', 'timeoutMs', 'extraSystemPrompt', 'bootstrapContextMode', 'lane', 'model', 'sessionModel', 'attachments', 'fastMode', 'fastAutoOnSeconds', 'input'] as const

/** The run options of a request worth keeping (undefined ones left out), or undefined when it has none. */
export function acceptedRunOf(req: AcceptedRun): AcceptedRun | undefined {
  const out: Record<string, unknown> = {}
  for (const k of KEYS) {
    const v = req[k]
    if (v === undefined || (k === 'attachments' && (v as unknown[]).length === 0)) continue
    out[k] = v
  }
  return Object.keys(out).length > 0 ? (out as AcceptedRun) : undefined
}

const PROVENANCE_KINDS: readonly unknown[] = ['external_user', 'inter_session', 'internal_system']
const PROVENANCE_FIELDS = ['originSessionId', 'sourceSessionKey', 'sourceChannel', 'sourceTool'] as const

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)
const str = (v: unknown): v is string => typeof v === 'string'
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0

/**
 * The run options read back from a journal line. An attachment counts only when the record's `media` names its
 * saved path (the files the message carries): a line cannot make a run read any other file.
 */
export function parseAcceptedRun(raw: unknown, media: readonly string[] | undefined): AcceptedRun | undefined {
  if (!isObj(raw)) return undefined
  const out: AcceptedRun = {}
  if ((THINKING_LEVELS as readonly unknown[]).includes(raw.thinking)) out.thinking = raw.thinking as ThinkingLevel
  if (num(raw.timeoutMs)) out.timeoutMs = raw.timeoutMs
  if (str(raw.extraSystemPrompt)) out.extraSystemPrompt = raw.extraSystemPrompt
  if (raw.bootstrapContextMode === 'lightweight') out.bootstrapContextMode = 'lightweight'
  if (str(raw.lane)) out.lane = raw.lane
  if (str(raw.model)) out.model = raw.model
  if (raw.sessionModel === null || str(raw.sessionModel)) out.sessionModel = raw.sessionModel
  if (typeof raw.fastMode === 'boolean' || raw.fastMode === 'auto') out.fastMode = raw.fastMode
  if (num(raw.fastAutoOnSeconds)) out.fastAutoOnSeconds = raw.fastAutoOnSeconds
  if (Array.isArray(raw.attachments)) {
    const attachments = raw.attachments.filter(
      (a): a is SavedAttachment =>
        isObj(a) && str(a.path) && !!media?.includes(a.path) && str(a.fileName) && str(a.mimeType) && num(a.sizeBytes) && typeof a.image === 'boolean',
    )
    if (attachments.length > 0) out.attachments = attachments
  }
  if (isObj(raw.input)) {
    const i = raw.input
    const input: RunInput = {}
    if (isObj(i.provenance) && PROVENANCE_KINDS.includes(i.provenance.kind)) {
      const p: Record<string, unknown> = { kind: i.provenance.kind }
      for (const k of PROVENANCE_FIELDS) if (str(i.provenance[k])) p[k] = i.provenance[k]
      input.provenance = p as NonNullable<RunInput['provenance']>
    }
    if (isObj(i.intent) && i.intent.kind === 'session-goal-start' && i.intent.version === 1 && num(i.intent.issuedAtMs)) {
      input.intent = { kind: 'session-goal-start', version: 1, issuedAtMs: i.intent.issuedAtMs }
    }
    if (str(i.receipt)) input.receipt = i.receipt
    if (Object.keys(input).length > 0) out.input = input
  }
  return Object.keys(out).length > 0 ? out : undefined
}

/** `<from>/model` as `<to>/model` after a provider rename; undefined when the ref names another provider. */
export function renamedRef(ref: string | null | undefined, from: string, to: string): string | undefined {
  return typeof ref === 'string' && ref.startsWith(`${from}/`) ? `${to}/${ref.slice(from.length + 1)}` : undefined
}

/**
 * A waiting message's models (its request's `model`, the session's choice recorded at accept) follow a provider
 * rename: it was sent to that endpoint, which has a new name now. True when one moved.
 */
export function moveRunModels(run: Pick<AcceptedRun, 'model' | 'sessionModel'>, from: string, to: string): boolean {
  const model = renamedRef(run.model, from, to)
  const sessionModel = renamedRef(run.sessionModel, from, to)
  if (model) run.model = model
  if (sessionModel) run.sessionModel = sessionModel
  return !!(model || sessionModel)
}
