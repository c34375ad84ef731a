// The one method table: every operation the runtime offers, with closed TypeBox schemas for its params.
// The gateway (WebSocket, OpenClaw names) and the preload bridge (IPC) both dispatch through this table,
// so both transports expose the same operations with the same typed params and results.
import Type, { type Static, type TLiteral, type TSchema } from 'typebox'
import type {
  ApprovalDecision,
  AgentEvent,
  ExecApprovalRequest,
  QueueItem,
  QueueMode,
  UsageTotals,
} from './events'
import { ATTENTION_ICONS, STATUS_NOTE_MAX_CHARS, STATUS_NOTE_MAX_TTL_MINUTES, type OrganisationRowFields } from './session-organisation'
import type { SessionApprovalReplay } from './session-approval'
import { PROVIDER_NAME_PATTERN, THINKING_LEVELS, type ThinkingLevel } from './config-values'

import { MAX_MESSAGE_CHARS } from './message-limit'
import { QUEUE_MODE_NAMES, type QueueModeName } from './queue-mode'

export { MAX_MESSAGE_CHARS, PROVIDER_NAME_PATTERN, THINKING_LEVELS, type ThinkingLevel }

/** A command a chat message can be (commands.list; OpenClaw's command entry). */
export interface ChatCommandInfo {
  name: string
  textAliases?: string[]
  description: string
  category?: 'session' | 'options' | 'status' | 'management' | 'media' | 'tools'
  source: 'native'
  scope: 'text'
  acceptsArgs: boolean
  args?: Array<{ name: string; description: string; type: 'string'; required?: boolean }>
}

/** config.patch `raw`: a JSON5 merge patch (the whole config file is far smaller) */
export const CONFIG_RAW_MAX_CHARS = 1_048_576

const NonEmpty = (max = 512) => Type.String({ minLength: 1, maxLength: max })
const Closed = <T extends Record<string, TSchema>>(props: T) =>
  Type.Object(props, { additionalProperties: false })

/** A thinking level as OpenClaw sends it: free text ("max", "think harder", "adaptive"), mapped by the runtime. */
const ThinkingText = Type.String({ minLength: 1, maxLength: 64 })
/** OpenClaw delivery-routing fields: accepted so its clients work; Loopdesk replies only into the session. */
const RouteField = Type.Optional(Type.String({ maxLength: 512 }))
/** optional agentId next to a session key: when given it must be that key's agent */
const AgentOfKey = Type.Optional(NonEmpty(64))
/** precondition: the call is refused unless the session's current sessionId is this one */
const ExpectedSessionId = Type.Optional(NonEmpty(128))
/** precondition: refused unless the session's lifecycleRevision (new on create and reset) is this one */
const ExpectedLifecycleRevision = Type.Optional(NonEmpty(128))
const Nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]))
const QueueModeS = Type.Union([
  Type.Literal('steer'),
  Type.Literal('followup'),
  Type.Literal('collect'),
  Type.Literal('interrupt'),
])
/** sessions.patch's queueMode: a mode, or any alias or retired name OpenClaw reads (stored as its mode; shared/queue-mode.ts) */
// (one literal per name; typed as a one-member tuple of their union, which is the static type TypeBox derives)
const QueueModeNameS = Type.Union(QUEUE_MODE_NAMES.map((n) => Type.Literal(n)) as [TLiteral<QueueModeName>])
const VerboseS = Type.Union([Type.Literal('off'), Type.Literal('on'), Type.Literal('full')])
const ReasoningS = Type.Union([Type.Literal('off'), Type.Literal('on'), Type.Literal('stream')])
/** OpenClaw's session fast mode: on, off, or "auto" (the provider decides). */
const FastModeS = Type.Union([Type.Boolean(), Type.Literal('auto')])
/**
 * OpenClaw v4 session permission modes. Loopdesk serves two: `read-only` (the model gets only the tools
 * that read: no write, edit, exec or plugin tools) and `guarded` (the default: files inside the workspace,
 * commands after the allowlist or the user's approval). `workspace` (an LLM reviewer) and `full` (no
 * confinement, no approvals) are refused with a reason.
 */
const PermissionModeS = Type.Union([Type.Literal('read-only'), Type.Literal('guarded'), Type.Literal('workspace'), Type.Literal('full')])
/** the permission modes Loopdesk runs */
export type PermissionMode = 'read-only' | 'guarded'
export type FastMode = boolean | 'auto'
/** OpenClaw's sparse per-session tool overlay (Loopdesk sessions have none; used by chat.send's precondition) */
const ToolOverridesS = Closed({
  mcpServers: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
  mcpToolsDeny: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String({ minLength: 1 })))),
  skills: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
  webSearch: Type.Optional(Type.Boolean()),
})
export type SessionToolOverrides = Static<typeof ToolOverridesS>
/** OpenClaw InputProvenance: who an input comes from (closed, as chat.send's systemInputProvenance) */
const InputProvenanceS = Closed({
  kind: Type.Union([Type.Literal('external_user'), Type.Literal('inter_session'), Type.Literal('internal_system')]),
  originSessionId: Type.Optional(Type.String()),
  sourceSessionKey: Type.Optional(Type.String()),
  sourceChannel: Type.Optional(Type.String()),
  sourceTool: Type.Optional(Type.String()),
})
export type InputProvenance = Static<typeof InputProvenanceS>
/** OpenClaw's attachment shape (sessions.send); open, like the package schema. */
const AttachmentS = Type.Object(
  {
    type: Type.Optional(Type.String()),
    mimeType: Type.Optional(Type.String()),
    fileName: Type.Optional(Type.String()),
    content: Type.Optional(Type.Unknown()),
    sizeBytes: Type.Optional(Type.Number()),
    durationMs: Type.Optional(Type.Number()),
    width: Type.Optional(Type.Number()),
    height: Type.Optional(Type.Number()),
  },
  { additionalProperties: true },
)
/** message attachments (agent, chat.send, sessions.send/steer); the runtime decodes and checks them */
const Attachments = Type.Optional(Type.Array(AttachmentS, { maxItems: 32 }))
/** sessions.send / sessions.steer params (OpenClaw SessionsSendParams). */
const SessionSendS = Closed({
  key: NonEmpty(),
  agentId: Type.Optional(NonEmpty(64)),
  message: Type.String({ maxLength: MAX_MESSAGE_CHARS }),
  thinking: Type.Optional(ThinkingText),
  attachments: Attachments,
  timeoutMs: Type.Optional(Type.Integer({ minimum: 0 })),
  idempotencyKey: Type.Optional(NonEmpty(256)),
})

export const Schemas = {
  health: Closed({}),
  status: Closed({}),
  agent: Closed({
    /** may be empty only with attachments (checked by the handler) */
    message: Type.String({ maxLength: MAX_MESSAGE_CHARS }),
    attachments: Attachments,
    idempotencyKey: NonEmpty(256),
    agentId: Type.Optional(NonEmpty(64)),
    sessionKey: Type.Optional(NonEmpty()),
    sessionId: Type.Optional(NonEmpty(128)),
    /** the run is refused unless the session's current sessionId is this one (no silent new session) */
    expectedExistingSessionId: Type.Optional(NonEmpty(128)),
    thinking: Type.Optional(ThinkingText),
    /** seconds; 0 = none; above a year is clamped */
    timeout: Type.Optional(Type.Integer({ minimum: 0 })),
    extraSystemPrompt: Type.Optional(Type.String({ maxLength: 100_000 })),
    label: Type.Optional(Type.String({ maxLength: 512 })),
    lane: Type.Optional(NonEmpty(64)),
    deliver: Type.Optional(Type.Boolean()),
    bestEffortDeliver: Type.Optional(Type.Boolean()),
    channel: Type.Optional(Type.String({ maxLength: 64 })),
    to: RouteField,
    replyTo: RouteField,
    replyChannel: RouteField,
    accountId: RouteField,
    replyAccountId: RouteField,
    threadId: RouteField,
    groupId: RouteField,
    groupChannel: RouteField,
    groupSpace: RouteField,
    /** who the input is from (OpenClaw); recorded nowhere yet, every Loopdesk input is the user's */
    inputProvenance: Type.Optional(
      Type.Object(
        { kind: Type.Union([Type.Literal('external_user'), Type.Literal('inter_session'), Type.Literal('internal_system')]) },
        { additionalProperties: true },
      ),
    ),
    provider: Type.Optional(NonEmpty(64)),
    model: Type.Optional(NonEmpty(256)),
    /** OpenClaw: `lightweight` leaves the workspace's bootstrap files (AGENTS.md, SOUL.md, …) out of the system prompt */
    bootstrapContextMode: Type.Optional(Type.Union([Type.Literal('full'), Type.Literal('lightweight')])),
    /** OpenClaw's heartbeat / cron run kinds; Loopdesk runs neither, so every kind runs as `default` */
    bootstrapContextRunKind: Type.Optional(Type.Union([Type.Literal('default'), Type.Literal('heartbeat'), Type.Literal('cron')])),
    /** OpenClaw v4: Loopdesk bundles no MCP servers, so there is nothing to clean up */
    cleanupBundleMcpOnRunEnd: Type.Optional(Type.Boolean()),
    /** OpenClaw v4: only `full` (Loopdesk always sends its whole system prompt); others are refused by the handler */
    promptMode: Type.Optional(Type.Union([Type.Literal('full'), Type.Literal('minimal'), Type.Literal('none')])),
    /** refused by the handler with the reason: Loopdesk has no background tasks whose completions it could relay */
    internalEvents: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 64 })),
    /** refused by the handler with the reason: runs work in the agent's workspace, which the tools are confined to */
    cwd: Type.Optional(NonEmpty(4096)),
    /** refused by the handler with the reason: OpenClaw's internal model-run flag has no Loopdesk counterpart */
    modelRun: Type.Optional(Type.Boolean()),
    /** OpenClaw's macOS/iOS apps name the wake word that started the turn (its voicewake routing); no effect here */
    voiceWakeTrigger: Type.Optional(Type.String({ maxLength: 512 })),
    /** OpenClaw v4 channel delivery (a reply delivered by itself or only through the message tool): no channels here */
    sourceReplyDeliveryMode: Type.Optional(Type.Union([Type.Literal('automatic'), Type.Literal('message_tool_only')])),
    /** OpenClaw v4: only false (every run offers its message tool); true is refused by the handler with the reason */
    disableMessageTool: Type.Optional(Type.Boolean()),
    /** OpenClaw v4: only false (the prompt is stored as every message is); true is refused by the handler */
    suppressPromptPersistence: Type.Optional(Type.Boolean()),
    /** OpenClaw v4: only "visible" (a run updates its session as usual); "internal" is refused by the handler */
    sessionEffects: Type.Optional(Type.Union([Type.Literal('visible'), Type.Literal('internal')])),
  }),
  'agent.wait': Closed({
    runId: NonEmpty(256),
    /** any non-negative value (OpenClaw); the runtime clamps it to MAX_WAIT_MS */
    timeoutMs: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
  'agent.identity.get': Closed({ agentId: Type.Optional(NonEmpty(64)), sessionKey: Type.Optional(Type.String({ maxLength: 512 })) }),
  'chat.send': Closed({
    sessionKey: NonEmpty(),
    /** when given, must be the agent of sessionKey */
    agentId: Type.Optional(NonEmpty(64)),
    message: Type.String({ maxLength: MAX_MESSAGE_CHARS }),
    idempotencyKey: NonEmpty(256),
    thinking: Type.Optional(ThinkingText),
    /** run budget in ms (0 = none); above a year is clamped */
    timeoutMs: Type.Optional(Type.Integer({ minimum: 0 })),
    queueMode: Type.Optional(QueueModeS),
    deliver: Type.Optional(Type.Boolean()),
    /** the text is sent as is: `/new`, `/reset`, `/stop` are not commands */
    suppressCommandInterpretation: Type.Optional(Type.Boolean()),
    replyToId: Type.Optional(NonEmpty(256)),
    originatingChannel: RouteField,
    originatingTo: RouteField,
    originatingAccountId: RouteField,
    originatingThreadId: RouteField,
    attachments: Attachments,
    /** precondition: refused ("Session <key> changed before send. Retry.") unless this is the session's current sessionId */
    sessionId: Type.Optional(NonEmpty(128)),
    /**
     * precondition (transcript compare-and-swap): refused with details.reason `active-leaf-changed` unless the
     * message would directly follow this entry (`__openclaw.id` of the newest message/compaction; null = none yet).
     * An explicit `queueMode: "steer"` ignores it, as in OpenClaw.
     */
    expectedLeafEntryId: Type.Optional(Type.Union([NonEmpty(256), Type.Null()])),
    /** precondition: `<scope>|<mainKey>|<defaultAgentId>`, how "main" resolves (Loopdesk: `per-sender|main|<default agent>`) */
    expectedSessionRoutingContract: Type.Optional(NonEmpty(512)),
    /** precondition: the session's recorded permission mode (null: none recorded) */
    expectedPermissionMode: Type.Optional(Type.Union([PermissionModeS, Type.Null()])),
    /** precondition: Loopdesk sessions have no tool overrides, so only null or an overlay that overrides nothing matches */
    expectedToolOverrides: Type.Optional(Type.Union([ToolOverridesS, Type.Null()])),
    /** this message's speed: overrides the session's fastMode for its run ("auto": fast for model calls started in the first fastAutoOnSeconds) */
    fastMode: Type.Optional(FastModeS),
    /** with fastMode "auto" (sent or the session's): the cutoff in seconds, default 60 */
    fastAutoOnSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
    /** OpenClaw v4 goal start; Loopdesk has no session goals: sent as an ordinary message, the intent is recorded on it */
    intent: Type.Optional(
      Closed({ kind: Type.Literal('session-goal-start'), version: Type.Literal(1), issuedAtMs: Type.Integer({ minimum: 0 }) }),
    ),
    /** OpenClaw browser-copilot tool bindings; Loopdesk has no bindable tools: accepted, no effect */
    toolBindings: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 16 })),
    /** admin only: who the input is from; recorded on the user message (`provenance`) */
    systemInputProvenance: Type.Optional(InputProvenanceS),
    /** admin only: a source receipt the model sees with this message (its run's system prompt), not shown as message text */
    systemProvenanceReceipt: Type.Optional(Type.String({ maxLength: 100_000 })),
  }),
  'chat.history': Closed({
    sessionKey: NonEmpty(),
    agentId: AgentOfKey,
    /** OpenClaw's schema says ≤ 1000, newer Control UIs ask for 10,000: taken, the page is capped by bytes anyway */
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    maxChars: Type.Optional(Type.Integer({ minimum: 1, maximum: 500_000 })),
    /**
     * Loopdesk (exports): every message whole, none replaced by the "message too large" placeholder OpenClaw
     * puts in for one over 128 KiB; a page still stops at 6 MB (after at least one message).
     */
    wholeMessages: Type.Optional(Type.Boolean()),
    /**
     * Loopdesk (the window): replies that said nothing to the user (NO_REPLY, a repeat of a message-tool send),
     * which OpenClaw leaves out, come back as rows without text marked `silent: true`, so a run that chose not to
     * answer is not taken for one that never ran. Pages with and without it count rows differently (`offset`).
     */
    silentReplies: Type.Optional(Type.Boolean()),
    /** Number of newest messages to skip (paging backwards). */
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    /**
     * OpenClaw v4: a `deltaCursor` from an earlier reply; the answer is only what was appended since
     * (`kind: "delta"`), or `kind: "reset"` when that cannot be told (refetch the tail). Any string: a
     * malformed one is a reset, not an error.
     */
    cursor: Type.Optional(Type.String()),
    /** OpenClaw v4: rows around the row with this `__openclaw.id` instead of the newest ones */
    messageId: Type.Optional(NonEmpty()),
    /** OpenClaw v4, with messageId: an earlier transcript of this session (before a reset) */
    sessionId: Type.Optional(NonEmpty()),
    /** OpenClaw v4: page of waiting inputs before this position (`pendingInputs.nextBefore`) */
    pendingBefore: Type.Optional(Type.Integer({ minimum: 1 })),
    /** OpenClaw v4: report whether the inputs accepted under these runIds were consumed (`inputReceipts`) */
    inputRunIds: Type.Optional(Type.Array(NonEmpty(256), { minItems: 1, maxItems: 50, uniqueItems: true })),
  }),
  'chat.abort': Closed({
    sessionKey: NonEmpty(),
    agentId: AgentOfKey,
    runId: Type.Optional(NonEmpty(256)),
    /**
     * OpenClaw v4: a session-wide abort spares the session's side runs (`/btw` questions, answered beside the
     * transcript). Loopdesk has none (`/btw` is an ordinary message, its run a main run): nothing to spare.
     */
    preserveSideRuns: Type.Optional(Type.Boolean()),
  }),
  'sessions.list': Closed({
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    /** rows to skip after filtering and sorting (paging) */
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    /** every Loopdesk session is a direct (per-agent) one: global/unknown rows only exist when asked for */
    includeGlobal: Type.Optional(Type.Boolean()),
    includeUnknown: Type.Optional(Type.Boolean()),
    /** adds derivedTitle (first user message) to rows without a label */
    includeDerivedTitles: Type.Optional(Type.Boolean()),
    /** only sessions created with this parentSessionKey (sessions.create) */
    spawnedBy: Type.Optional(NonEmpty()),
    sortBy: Type.Optional(Type.Union([Type.Literal('updatedAt'), Type.Literal('lastInteractionAt')])),
    requireLastInteraction: Type.Optional(Type.Boolean()),
    configuredAgentsOnly: Type.Optional(Type.Boolean()),
    /** absent/false: sessions not archived; true: only archived ones; "all": both */
    archived: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('all')])),
    // Accepted for OpenClaw clients and ignored: boards, owners and people do not exist in a single-user app.
    boardFace: Type.Optional(Type.Union([Type.Literal('chat'), Type.Literal('dashboard')])),
    creatorId: Type.Optional(NonEmpty()),
    ownerId: Type.Optional(NonEmpty()),
    ownerFirst: Type.Optional(Type.Boolean()),
    involvingMe: Type.Optional(Type.Boolean()),
    involvingProfileId: Type.Optional(NonEmpty()),
    includePeople: Type.Optional(Type.Boolean()),
    agentId: Type.Optional(NonEmpty(64)),
    label: Type.Optional(Type.String({ maxLength: 512 })),
    search: Type.Optional(Type.String({ maxLength: 500 })),
    includeLastMessage: Type.Optional(Type.Boolean()),
    activeMinutes: Type.Optional(Type.Integer({ minimum: 1 })),
  }),
  'sessions.subscribe': Closed({}),
  /** OpenClaw's: this connection stops getting sessions.changed / session.tool */
  'sessions.unsubscribe': Closed({}),
  'sessions.create': Closed({
    key: Type.Optional(NonEmpty()),
    agentId: Type.Optional(NonEmpty(64)),
    label: Type.Optional(Type.String({ maxLength: 512 })),
    /** a title for a NEW session (ignored when the key exists); not unique, unlike label */
    displayName: Type.Optional(NonEmpty(500)),
    model: Type.Optional(NonEmpty(256)),
    thinkingLevel: Type.Optional(ThinkingText),
    fastMode: Type.Optional(FastModeS),
    /** what the session's runs may do (read-only or guarded; see PermissionModeS) */
    permissionMode: Type.Optional(PermissionModeS),
    /** recorded as the row's spawnedBy (sessions.list filters on it); must be an existing session */
    parentSessionKey: Type.Optional(NonEmpty()),
    /** a first message, sent as chat.send would once the session exists (`task` is the same, OpenClaw's older name) */
    message: Type.Optional(Type.String({ maxLength: MAX_MESSAGE_CHARS })),
    task: Type.Optional(Type.String({ maxLength: MAX_MESSAGE_CHARS })),
    /** the first message's runId / dedupe key (generated when absent) */
    idempotencyKey: Type.Optional(NonEmpty(256)),
    /** files for the first message (as chat.send's); only with message/task */
    attachments: Attachments,
    /** a sidebar bucket for a NEW session (as sessions.patch category; ignored when the key exists) */
    category: Type.Optional(NonEmpty(512)),
    /** fire the `command:new` hook for the new session, as /new does (OpenClaw's Control UI sends it) */
    emitCommandHooks: Type.Optional(Type.Boolean()),
    /** start the new session with a copy of the parent's conversation (needs parentSessionKey) */
    fork: Type.Optional(Type.Boolean()),
    /** fork only through the parent's last completed reply (needs fork) */
    forkFrom: Type.Optional(Type.Literal('last-completed')),
    /** spawn lineage depth of a child session (needs parentSessionKey); recorded on the row */
    spawnDepth: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    /** OpenClaw: whether the child ends its parent; Loopdesk never ends a parent, so only false is taken */
    succeedsParent: Type.Optional(Type.Boolean()),
  }),
  /**
   * OpenClaw's: a new session with the conversation before user message `entryId` (its `__openclaw.id`); the
   * result's editorText is that message's text, for the composer. Nothing is sent and the session is unchanged.
   */
  'sessions.fork': Closed({
    sessionKey: NonEmpty(),
    agentId: Type.Optional(NonEmpty(64)),
    entryId: NonEmpty(256),
  }),
  'sessions.patch': Closed({
    key: NonEmpty(),
    agentId: AgentOfKey,
    expectedSessionId: ExpectedSessionId,
    label: Type.Optional(Type.Union([Type.String({ maxLength: 512 }), Type.Null()])),
    /** free text like agent's `thinking` ("adaptive" clears the override) */
    thinkingLevel: Type.Optional(Type.Union([ThinkingText, Type.Null()])),
    verboseLevel: Type.Optional(Type.Union([VerboseS, Type.Null()])),
    reasoningLevel: Type.Optional(Type.Union([ReasoningS, Type.Null()])),
    model: Type.Optional(Type.Union([NonEmpty(256), Type.Null()])),
    queueMode: Type.Optional(Type.Union([QueueModeNameS, Type.Null()])),
    queueDebounceMs: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 600_000 }), Type.Null()])),
    queueCap: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1000 }), Type.Null()])),
    queueDrop: Type.Optional(
      Type.Union([Type.Literal('old'), Type.Literal('new'), Type.Literal('summarize'), Type.Null()]),
    ),
    fastMode: Type.Optional(Type.Union([FastModeS, Type.Null()])),
    /** what the session's next runs may do (read-only or guarded; null: the default, guarded) */
    permissionMode: Type.Optional(Type.Union([PermissionModeS, Type.Null()])),
    // Organisation (OpenClaw v4; rules in shared/session-organisation.ts). Archived sessions take no new work.
    expectedLifecycleRevision: ExpectedLifecycleRevision,
    /** apply `unread: false` only while the explicit unread mark is still this one (null: no mark) */
    expectedMarkedUnreadAt: Nullable(Type.Number({ minimum: 0 })),
    archived: Type.Optional(Type.Boolean()),
    pinned: Type.Optional(Type.Boolean()),
    /** true marks the session unread; false records it as read */
    unread: Type.Optional(Type.Boolean()),
    /** one emoji or a named glyph */
    icon: Nullable(Type.String({ maxLength: 64 })),
    color: Nullable(Type.String({ maxLength: 32 })),
    category: Nullable(NonEmpty(512)),
    /** short sidebar status; null clears it and its attention */
    statusNote: Nullable(Type.String({ maxLength: STATUS_NOTE_MAX_CHARS })),
    attention: Nullable(Type.Enum(ATTENTION_ICONS)),
    /** how long the status note shows (default 30) */
    ttlMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: STATUS_NOTE_MAX_TTL_MINUTES })),
  }),
  'sessions.reset': Closed({
    key: NonEmpty(),
    agentId: AgentOfKey,
    reason: Type.Optional(Type.Union([Type.Literal('new'), Type.Literal('reset')])),
  }),
  'sessions.delete': Closed({
    key: NonEmpty(),
    agentId: AgentOfKey,
    expectedSessionId: ExpectedSessionId,
    expectedLifecycleRevision: ExpectedLifecycleRevision,
    /** refused unless the session's updatedAt is exactly this */
    expectedSessionUpdatedAt: Type.Optional(Type.Number({ minimum: 0 })),
    /** delete only an archived session (archive first, then delete) */
    archivedOnly: Type.Optional(Type.Boolean()),
    deleteTranscript: Type.Optional(Type.Boolean()),
    /** false: plugins' session_end does not fire for this deletion (default true) */
    emitLifecycleHooks: Type.Optional(Type.Boolean()),
  }),
  /** key and/or runId (OpenClaw: abort by runId alone); clearQueued also drops what waits behind the run */
  'sessions.abort': Closed({
    key: Type.Optional(NonEmpty()),
    runId: Type.Optional(NonEmpty(256)),
    agentId: Type.Optional(NonEmpty(64)),
    clearQueued: Type.Optional(Type.Boolean()),
  }),
  'sessions.compact': Closed({
    key: NonEmpty(),
    agentId: Type.Optional(NonEmpty(64)),
    instructions: Type.Optional(Type.String({ maxLength: 10_000 })),
    /** OpenClaw: keep at most this many transcript lines; here: compact only when the transcript is longer */
    maxLines: Type.Optional(Type.Integer({ minimum: 1 })),
  }),
  'sessions.send': SessionSendS,
  /** sessions.send that first interrupts the session's active run */
  'sessions.steer': SessionSendS,
  'sessions.messages.subscribe': Closed({
    key: NonEmpty(),
    agentId: Type.Optional(NonEmpty(64)),
    /**
     * OpenClaw v4: also the session's exec approvals — pending ones in the result (`approvalReplay`), each
     * change as a `session.approval` event (gateway; needs operator.approvals there)
     */
    includeApprovals: Type.Optional(Type.Literal(true)),
  }),
  'sessions.messages.unsubscribe': Closed({ key: NonEmpty(), agentId: Type.Optional(NonEmpty(64)) }),
  'models.list': Closed({
    /** marks that agent's model as the default (else the global default) */
    agentId: Type.Optional(NonEmpty(64)),
    // OpenClaw catalog views: every Loopdesk model is a configured one, so all views list the same models
    view: Type.Optional(Type.Union([Type.Literal('default'), Type.Literal('configured'), Type.Literal('provider-config'), Type.Literal('all')])),
    includeProviderCapabilities: Type.Optional(Type.Boolean()),
    refresh: Type.Optional(Type.Boolean()),
    preparedOnly: Type.Optional(Type.Boolean()),
  }),
  'agents.list': Closed({}),
  /** the commands a chat message may be (OpenClaw's slash menu): Loopdesk's /new, /reset, /stop */
  'commands.list': Closed({
    sessionKey: Type.Optional(NonEmpty()),
    agentId: Type.Optional(NonEmpty(64)),
    provider: Type.Optional(NonEmpty(128)),
    /** text: typed in a chat; native: a platform's own command menu (Loopdesk has none); both */
    scope: Type.Optional(Type.Union([Type.Literal('text'), Type.Literal('native'), Type.Literal('both')])),
    includeArgs: Type.Optional(Type.Boolean()),
  }),
  'tools.catalog': Closed({
    agentId: Type.Optional(NonEmpty(64)),
    /** OpenClaw: list plugin tools too. Loopdesk plugins register hooks, never tools: the catalog is the same */
    includePlugins: Type.Optional(Type.Boolean()),
  }),
  'config.get': Closed({}),
  /**
   * A merge patch for the config file: `patch` (an object) or `raw` (the same as JSON5 text, OpenClaw's
   * form) — exactly one. Arrays of `{id}` entries merge by id; a patch that would drop array entries is
   * refused unless `replacePaths` names that array. Secrets (apiKey, auth.token) are write-only.
   */
  'config.patch': Closed({
    patch: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    raw: Type.Optional(Type.String({ minLength: 1, maxLength: CONFIG_RAW_MAX_CHARS })),
    /** config.get's hash ("" = there was no config file yet; OpenClaw requires a non-empty one) */
    baseHash: Type.Optional(Type.String({ maxLength: 128 })),
    /** dot paths (`[]` = each entry of an id-keyed list, e.g. `agents.list[].skills`) replaced wholesale */
    replacePaths: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: 256 })),
    // OpenClaw restarts its gateway after a config write and reports to this session; Loopdesk applies the
    // config live, so these are accepted and have no effect.
    sessionKey: Type.Optional(Type.String({ maxLength: 512 })),
    note: Type.Optional(Type.String({ maxLength: 10_000 })),
    restartDelayMs: Type.Optional(Type.Integer({ minimum: 0 })),
    deliveryContext: Type.Optional(
      Closed({
        channel: Type.Optional(Type.String()),
        to: Type.Optional(Type.String()),
        accountId: Type.Optional(Type.String()),
        threadId: Type.Optional(Type.Union([Type.String(), Type.Number()])),
      }),
    ),
  }),
  'exec.approval.resolve': Closed({
    id: NonEmpty(128),
    decision: Type.Union([Type.Literal('allow-once'), Type.Literal('allow-always'), Type.Literal('deny')]),
    /** OpenClaw v4: the channel sender resolved for; recorded on the resolved event as stated */
    reviewer: Type.Optional(Closed({ channel: NonEmpty(), accountId: NonEmpty(), senderId: NonEmpty() })),
    /** OpenClaw v4: with allow-always, the allowance ends after this many days (ignored otherwise) */
    grantExpiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
  }),
  // Loopdesk extensions (namespaced so they never clash with OpenClaw methods).
  'loopdesk.events.recent': Closed({
    sessionKey: NonEmpty(),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })),
  }),
  /** sessions whose messages contain `query` (case-insensitive): the newest matching message of each, newest sessions first */
  'loopdesk.sessions.search': Closed({
    query: NonEmpty(200),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  }),
  /**
   * find in one conversation: every message of the session's transcript containing `query` (case-insensitive,
   * as loopdesk.sessions.search matches), counted; the newest `limit` of them listed, oldest first
   */
  'loopdesk.chat.find': Closed({
    sessionKey: NonEmpty(),
    agentId: AgentOfKey,
    query: NonEmpty(200),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000 })),
  }),
  /**
   * one GET of a model server's model list: does the base URL (and the saved key) work, and which models
   * it serves. `provider`: a configured provider (its baseUrl, api and key — the key only to its own URL)
   */
  'loopdesk.models.probe': Closed({
    provider: Type.Optional(NonEmpty(128)),
    baseUrl: Type.Optional(NonEmpty(2048)),
    api: Type.Optional(Type.Union([Type.Literal('openai-completions'), Type.Literal('openai-responses'), Type.Literal('anthropic-messages')])),
  }),
  /**
   * renames a provider of the user's own in one config write: `models.providers.<from>` moves to `<to>` (its
   * models and settings, the comments in the file), its stored key moves with it (it never leaves the
   * runtime), and the model refs `<from>/…` (default model, agents' models) follow. `patch` (a config.patch
   * merge patch touching only `models.providers.<to>` and `agents.defaults.model.primary`, with its
   * `replacePaths`) is applied in the same write.
   */
  'loopdesk.config.renameProvider': Closed({
    from: NonEmpty(128),
    to: Type.String({ pattern: PROVIDER_NAME_PATTERN }),
    baseHash: Type.Optional(Type.String({ maxLength: 128 })),
    patch: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    replacePaths: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: 256 })),
  }),
  'loopdesk.queue.list': Closed({ sessionKey: NonEmpty() }),
  'loopdesk.queue.remove': Closed({ sessionKey: NonEmpty(), id: NonEmpty(128) }),
  /** the messages waiting now stay queued after the run ends (the window's Stop) instead of starting */
  'loopdesk.queue.hold': Closed({ sessionKey: NonEmpty() }),
  /** held messages (these ids, else all) run again as their turn comes */
  'loopdesk.queue.release': Closed({ sessionKey: NonEmpty(), ids: Type.Optional(Type.Array(NonEmpty(128), { maxItems: 1000 })) }),
  /**
   * waiting messages in this order (they take the places the named ones held; the others, and ids no longer
   * waiting, stay put): the next follow-up and a collect batch follow it
   */
  'loopdesk.queue.reorder': Closed({ sessionKey: NonEmpty(), ids: Type.Array(NonEmpty(128), { minItems: 1, maxItems: 1000 }) }),
  'loopdesk.prefs.get': Closed({}),
  'loopdesk.prefs.set': Closed({
    theme: Type.Optional(Type.Union([Type.Literal('light'), Type.Literal('dark'), Type.Literal('system')])),
    inspectorOpen: Type.Optional(Type.Boolean()),
    inspectorWidth: Type.Optional(Type.Integer({ minimum: 200, maximum: 2000 })),
    sidebarWidth: Type.Optional(Type.Integer({ minimum: 150, maximum: 1000 })),
  }),
} as const

export type MethodName = keyof typeof Schemas
export type ParamsOf<M extends MethodName> = Static<(typeof Schemas)[M]>

// ---------------------------------------------------------------- results

/** A session's run state as the runtime stores it (idle = never ran / reset; interrupted = the app died mid-run). */
export type SessionStatus = 'idle' | 'running' | 'done' | 'failed' | 'killed' | 'timeout' | 'interrupted'
/** OpenClaw's row status enum: stored `idle` has no status, `interrupted` is `failed` + `interrupted: true`. */
export type SessionRowStatus = 'running' | 'done' | 'failed' | 'killed' | 'timeout'
export type SessionKind = 'direct' | 'group' | 'global' | 'unknown'

/**
 * A session as listed. The organisation fields (archived, pinned, unread, icon, color, category,
 * agentStatus, …) are optional in the type for older producers; the runtime always sends the booleans.
 */
export interface SessionRow extends Partial<OrganisationRowFields> {
  key: string
  /** OpenClaw session kind; Loopdesk's `agent:<id>:<rest>` sessions are direct */
  kind: SessionKind
  sessionId: string
  agentId: string
  label?: string
  displayName?: string
  /** the session this one was created from (sessions.create parentSessionKey) */
  spawnedBy?: string
  spawnDepth?: number
  /** a fork's origin: the parent session and transcript, and (sessions.fork) the user message it was cut before */
  forkSource?: { sessionKey: string; sessionId: string; entryId?: string }
  /** OpenClaw's flag for a row with forkSource */
  forkedFromParent?: boolean
  /** opaque; changes when the session is created or reset (expectedLifecycleRevision preconditions) */
  lifecycleRevision?: string
  /** first user message, when asked for with includeDerivedTitles */
  derivedTitle?: string
  updatedAt: number
  /** Loopdesk: when the session (this incarnation: a reset starts a new one) was created */
  createdAt?: number
  /** absent while idle (never ran, or reset) */
  status?: SessionRowStatus
  /** Loopdesk: the last run was cut off by an app exit/crash (status is then `failed`) */
  interrupted?: true
  fastMode?: FastMode
  /** set with sessions.patch / sessions.create; absent = guarded */
  permissionMode?: PermissionMode
  activeRunId?: string
  startedAt?: number
  endedAt?: number
  runtimeMs?: number
  model?: string
  modelProvider?: string
  /** Loopdesk: the model chosen for this session (sessions.patch `model`, `/model`); absent = the default model */
  modelOverride?: string
  thinkingLevel?: ThinkingLevel
  verboseLevel?: 'off' | 'on' | 'full'
  reasoningLevel?: 'off' | 'on' | 'stream'
  queueMode?: QueueMode
  inputTokens: number
  outputTokens: number
  totalTokens: number
  estimatedCostUsd: number
  compactionCount: number
  lastMessagePreview?: string
  lastError?: string
}

export interface WaitResult {
  runId: string
  /** pending (v4): the wait ended while the run still waited in its session's queue */
  status: 'ok' | 'error' | 'timeout' | 'pending'
  startedAt?: number
  endedAt?: number
  error?: string
  /**
   * with pending: where the run is (OpenClaw v4 names more phases; Loopdesk reports the queue); with timeout,
   * `gateway_draining`: the wait was cut short by the runtime's shutdown (v4's phase for it)
   */
  timeoutPhase?: 'queue' | 'gateway_draining'
  /** with pending: no model request was made yet */
  providerStarted?: false
  /** (v4) an ended run's stop reason, as its lifecycle end said it */
  stopReason?: string
  /** (v4) what the run's end said about its reply (OpenClaw 2026.9's terminalReply) */
  terminalReply?: TerminalReply
}

/** OpenClaw 2026.9's terminal reply fact: silence (NO_REPLY), nothing, or the reply's text (≤ 4,096 chars) */
export type TerminalReply = { disposition: 'silent' } | { disposition: 'empty' } | { disposition: 'visible'; text: string }

export interface ReplyPayload {
  text?: string
  isError?: boolean
  isReasoning?: boolean
}

export interface RunMeta {
  durationMs: number
  aborted?: boolean
  stopReason?: string
  error?: { kind: string; message: string }
  agentMeta: {
    sessionId: string
    provider: string
    model: string
    /** `total` = totalTokens: OpenClaw's name for the sum (its agentMeta.usage is {input, output, cacheRead, cacheWrite, total}) */
    usage: UsageTotals & { total: number }
    /** the session's compactions once the run ended, the run's own included (the session row's count) */
    compactionCount: number
  }
  timing?: RunTiming
}

export interface RunTiming {
  acceptedAt: number
  startedAt?: number
  firstDeltaAt?: number
  firstToolAt?: number
  endedAt?: number
  /** time spent inside model requests (stream fn call → assistant message end), summed over the run */
  modelMs?: number
}

export interface AgentFinal {
  runId: string
  status: 'ok' | 'error'
  summary: string
  result?: { payloads: ReplyPayload[]; meta: RunMeta }
}

/** A transcript message as served by chat.history (pi message + Loopdesk envelope). */
export interface OpenclawAbort {
  aborted: true
  origin: string
  runId?: string
}

export interface HistoryMessage {
  role: 'user' | 'assistant' | 'toolResult' | 'system' | 'compaction'
  content: unknown
  timestamp: number
  /** transcript entry id, stable across reloads */
  id: string
  runId?: string
  toolCallId?: string
  toolName?: string
  isError?: boolean
  /** a tool result's details (exec: exitCode, approval, …) */
  details?: unknown
  stopReason?: string
  errorMessage?: string
  usage?: unknown
  aborted?: boolean
  /**
   * OpenClaw's mark of a reply cut off by a stop: `origin` is `rpc` (chat.abort / sessions.abort), `stop-command`
   * (/stop), else Loopdesk's reason (`steer`, `interrupt`, `timeout`, `reset`, `shutdown`, …; `unknown` for a row an
   * older version wrote)
   */
  openclawAbort?: OpenclawAbort
  summary?: string
  /**
   * Loopdesk: when the transcript entry was written, where that is later than `timestamp` (an assistant
   * message's own timestamp is when its stream started): a reloaded run's duration ends here
   */
  completedAt?: number
  /**
   * OpenClaw's row identity, which its clients match live `session.message` rows against: the transcript
   * entry id, the message's 1-based position among the transcript's messages (= session.message
   * messageSeq; none on compaction markers) and the run that wrote it
   */
  __openclaw?: { id: string; seq?: number; runId?: string }
  /**
   * Loopdesk, only with chat.history's `silentReplies`: an assistant reply that said nothing to the user (only
   * NO_REPLY, or only what the message tool had already delivered); its text is left out
   */
  silent?: boolean
  /**
   * Loopdesk: the assistant message recovery wrote for a run a crash cut off (stopReason `error`): its text, if
   * any, is the reply as far as it had streamed
   */
  interrupted?: boolean
  /**
   * Loopdesk: Ollama read only part of the prompt of this model call (the run's agent `error` event
   * `context_truncated`, stored with the message): `message` is the note the run's footer shows
   */
  contextTruncated?: { message: string; promptTokens?: number; estimatedTokens?: number }
  /**
   * Loopdesk: the session's last model was no longer configured and this run used another (the run's agent
   * `error` event `model_changed`, stored with its first reply): `message` is the note shown under the run
   */
  modelChanged?: { from: string; to: string; message: string }
}

export interface ModelChoice {
  ref: string // "<provider>/<model>"
  provider: string
  id: string
  name: string
  contextWindow: number
  maxTokens: number
  reasoning: boolean
  input: string[]
  configured: boolean // a key (or keyless endpoint) is available
  /** OpenClaw: = configured (optional in the type for older producers; the runtime always sends it) */
  available?: boolean
  /** OpenClaw: why a model is not available (here always a missing key) */
  unavailableReason?: 'missing-auth'
}

export interface ToolInfo {
  name: string
  label: string
  description: string
  parameters: unknown
  needsApproval?: boolean
}

export interface ConfigIssue {
  path: string
  message: string
}

export interface Prefs {
  theme: 'light' | 'dark' | 'system'
  inspectorOpen: boolean
  inspectorWidth: number
  sidebarWidth: number
}

export interface AgentIdentity {
  agentId: string
  name?: string
  nameSource?: 'config' | 'agent' | 'workspace' | 'default'
  avatar?: string
  emoji?: string
}

/** OpenClaw v4 `ChatPendingInputsPage`: accepted inputs still waiting for a turn, oldest first. */
export interface ChatPendingInputs {
  items: Array<{ id: string; runId?: string; message: unknown; acceptedAt: number; state: 'queued' | 'cancelled' | 'interrupted' }>
  /** all waiting inputs, not only this page */
  total: number
  /** pass as `pendingBefore` for the page before this one */
  nextBefore?: number
}

/** OpenClaw v4 input custody for the asked `inputRunIds`: still waiting, or the transcript entry that took it. */
export type ChatInputReceipt = { runId: string; state: 'pending' } | { runId: string; state: 'consumed'; consumedByEventId: string }

/** What chat.history replies carry about the session besides rows (tail, window and delta alike). */
interface ChatHistorySessionState {
  inFlightRun?: { runId: string; text: string }
  /** OpenClaw v4: the session's started runs (running, or waiting in its lane); queued follow-ups are not runs yet */
  sessionInfo?: { hasActiveRun: boolean; activeRunIds: string[] }
  /** v4 only (a v3 connection sees it only when it asked with pendingBefore) */
  pendingInputs?: ChatPendingInputs
  /** only when asked with inputRunIds */
  inputReceipts?: ChatInputReceipt[]
  /** the consumed receipts again, in OpenClaw's older shape */
  inputConsumptions?: Array<{ runId: string; consumedByEventId: string }>
  /**
   * Loopdesk: lines of the transcript read for this reply that could not be read (damaged, not a crash-torn
   * last line) and are missing from it; absent when there are none. `transcriptFile` names that file relative to
   * the gateway's state dir, with `/` separators (`agents/main/sessions/<sessionId>.jsonl`).
   */
  damagedLines?: number
  transcriptFile?: string
}

/** A chat.history page: the newest rows, or older ones with `offset`. */
export interface ChatHistoryPage extends ChatHistorySessionState {
  sessionKey: string
  sessionId: string
  messages: HistoryMessage[]
  // The runtime always sends these three (OpenClaw), null when the session has no level of its own;
  // optional in the type so older producers (fakes, fixtures) still type-check.
  thinkingLevel?: ThinkingLevel | null
  fastMode?: FastMode | null
  verboseLevel?: 'off' | 'on' | 'full' | null
  /**
   * Loopdesk (not in a cursor's delta, OpenClaw's closed shape): the reasoning level the session's runs use now —
   * its own, else `agents.defaults.reasoningDefault`; at `off` the window shows the rows' stored reasoning no more
   * than a live run shows it
   */
  reasoningLevel?: 'off' | 'on' | 'stream'
  hasMore: boolean
  nextOffset?: number
  /** OpenClaw v4, on the newest page (no offset): pass as `cursor` to get only what is appended later */
  deltaCursor?: string
}

/** chat.history with `messageId`: rows around that row; no paging fields (OpenClaw). */
export type ChatHistoryWindow = Omit<ChatHistoryPage, 'hasMore' | 'nextOffset' | 'deltaCursor'> & { hasMore?: never; nextOffset?: never; deltaCursor?: never }

/** A transcript append as the gateway's `session.message` event carries it (and a history delta replays it). */
export interface SessionMessagePayload {
  sessionKey: string
  /** the transcript's message with its row identity (`__openclaw`) */
  message: { role: string; __openclaw?: { id: string; seq?: number; runId?: string }; [k: string]: unknown }
  messageId: string
  messageSeq?: number
  runId?: string
  ts: number
}

/** chat.history with `cursor` (OpenClaw v4 `ChatHistoryCursorResult`): what was appended since, or start over. */
export type ChatHistoryCursorResult =
  | (Omit<ChatHistorySessionState, 'sessionInfo'> & {
      kind: 'delta'
      messages: SessionMessagePayload[]
      deltaCursor: string
      sessionInfo: { hasActiveRun: boolean; activeRunIds: string[] }
    })
  | { kind: 'reset' }

export type ChatHistoryResult = ChatHistoryPage | ChatHistoryWindow | ChatHistoryCursorResult

/** The reply shape chat.history params ask for: a cursor gets a delta or reset, a messageId a window, else a page. */
export type ChatHistoryResultFor<P> = P extends { cursor: string }
  ? ChatHistoryCursorResult
  : P extends { messageId: string }
    ? ChatHistoryWindow
    : ChatHistoryPage

/** A method's result for these params (only chat.history's shape depends on them). */
export type ResultFor<M extends MethodName, P> = M extends 'chat.history' ? ChatHistoryResultFor<P> : ResultOf<M>

/** chat.send's acceptance, plus where the user message landed in the transcript when known. */
export type SessionSendResult = Results['chat.send'] & { key: string; messageSeq?: number }

/** A session whose transcript matched a content search: the newest matching message, as a snippet. */
export interface SessionSearchMatch {
  key: string
  /** the matching message: chat.history's row id (`__openclaw.id`), for a window around it (`messageId`) */
  messageId: string
  /** toolResult: the match is in a tool's output (assistant: its text or a tool call it made) */
  role: 'user' | 'assistant' | 'toolResult'
  snippet: string
}

/** A message of one conversation that matched a find (`loopdesk.chat.find`). */
export interface ChatFindMatch {
  messageId: string
  role: 'user' | 'assistant' | 'toolResult'
  /**
   * how often the query occurs in what find reads of the message (`src/shared/message-search.ts` countOccurrences:
   * text, tool calls' names and arguments, tool output; ≤ 50,000 characters of it), at least 1
   */
  count: number
}

/** OpenClaw's health summary of one session store (src/commands/health.types.ts). */
export interface HealthSessions {
  path: string
  count: number
  /** newest first, at most 10 */
  recent: Array<{ key: string; updatedAt: number | null; age: number | null }>
}

/** OpenClaw's per-agent heartbeat summary; Loopdesk has no heartbeat runs, so it is always disabled. */
export interface HeartbeatSummary {
  enabled: boolean
  every: string
  everyMs: number | null
  prompt: string
  target: string
  ackMaxChars: number
}

/**
 * OpenClaw's HealthSummary: what `health` answers and hello-ok's `snapshot.health` carries (one shape; the
 * package's schema for the snapshot is closed, so no Loopdesk fields here — `status` has the uptime).
 */
export interface HealthSummary {
  ok: true
  ts: number
  /** how long building this summary took */
  durationMs: number
  /** Loopdesk has no message channels */
  channels: Record<string, never>
  channelOrder: string[]
  channelLabels: Record<string, string>
  heartbeatSeconds: number
  defaultAgentId: string
  agents: Array<{ agentId: string; name?: string; isDefault: boolean; heartbeat: HeartbeatSummary; sessions: HealthSessions }>
  /** the default agent's store */
  sessions: HealthSessions
}

/** One of `status`'s recent sessions, as OpenClaw's SessionStatus (src/commands/status.types.ts). */
export interface StatusSession {
  agentId: string
  key: string
  kind: SessionKind
  sessionId: string
  updatedAt: number | null
  age: number | null
  thinkingLevel?: string
  fastMode?: FastMode
  verboseLevel?: string
  reasoningLevel?: string
  inputTokens?: number
  outputTokens?: number
  totalTokens: number | null
  totalTokensFresh: boolean
  cacheRead?: number
  cacheWrite?: number
  remainingTokens: number | null
  percentUsed: number | null
  model: string | null
  configuredModel: string | null
  selectedModel: string | null
  modelSelectionReason: string | null
  contextTokens: number | null
  flags: string[]
}

export interface Results {
  health: HealthSummary
  /**
   * OpenClaw's StatusSummary (`runtimeVersion`, `heartbeat`, `channelSummary`, `queuedSystemEvents`, `tasks`,
   * `taskAudit`, `sessions`) and Loopdesk's own fields beside it (`ok`, `version`, `uptimeMs`, `stateDir`,
   * `activeRuns`, `lanes`, `configIssues`, …), none of which OpenClaw's summary uses.
   */
  status: {
    runtimeVersion: string
    heartbeat: { defaultAgentId: string; agents: Array<{ agentId: string; enabled: boolean; every: string; everyMs: number | null }> }
    channelSummary: string[]
    queuedSystemEvents: string[]
    /** Loopdesk runs no background tasks (cron, subagents, ACP): all zero */
    tasks: {
      total: number
      active: number
      terminal: number
      failures: number
      byStatus: { queued: number; running: number; succeeded: number; failed: number; timed_out: number; cancelled: number; lost: number }
      byRuntime: { subagent: number; acp: number; cli: number; cron: number }
    }
    taskAudit: { total: number; warnings: number; errors: number; byCode: Record<string, number> }
    sessions: {
      /** every agent's sessions store */
      paths: string[]
      /** sessions of all agents */
      count: number
      defaults: { model: string | null; contextTokens: number | null }
      /** all agents', newest first, at most 10 */
      recent: StatusSession[]
      byAgent: Array<{ agentId: string; path: string; count: number; recent: StatusSession[] }>
    }
    ok: true
    version: string
    uptimeMs: number
    stateDir: string
    activeRuns: number
    lanes: Record<string, { active: number; queued: number }>
    configIssues: ConfigIssue[]
    /**
     * Loopdesk: configured models runs cannot use (an unknown provider or model id), path → why; the config
     * itself is valid and in use, so every run that needs one of them fails until it is fixed.
     */
    modelProblems?: ConfigIssue[]
    /**
     * Loopdesk: loopdesk.json holds secrets (dot paths, never values) and other local users can read it — its
     * mode could not be narrowed to 0600, or was widened since. Absent when the file is private or holds none.
     */
    configFileExposed?: { path: string; mode: string; secrets: string[] }
    /**
     * The local gateway hosted by this process, when one listens: its REAL port (the desktop app picks a
     * free one when the configured port is taken). Over the gateway itself it also says how it was bound.
     */
    gateway?: { port: number; url: string; bind?: 'loopback' | 'lan' | 'all'; fellBack?: boolean }
    /** where provider API keys are kept (Loopdesk): the OS keychain, or a file readable only by the user */
    credentials?: { store: 'system' } | { store: 'file'; path: string }
    /** the proxy model requests go through (Loopdesk; absent = direct): addresses without credentials */
    proxy?: { https?: string; http?: string; source: { https?: string; http?: string }; noProxy?: string }
  }
  agent: { runId: string; status: 'accepted'; acceptedAt: number }
  'agent.wait': WaitResult
  'chat.send':
    | { runId: string; status: 'started' | 'in_flight' | 'ok' | 'error' }
    | { runId: string; status: 'queued' | 'steered'; queueItemId: string }
    | {
        runId?: string
        status: 'command'
        ok: true
        aborted?: boolean
        runIds?: string[]
        messages?: string[]
        /** the canonical key of the session the command acted on (the gateway's chat final for OpenClaw clients) */
        sessionKey?: string
      }
  'chat.history': ChatHistoryResult
  'chat.abort': { ok: true; aborted: boolean; runIds: string[] }
  'sessions.list': {
    ts: number
    /** the sessions store file (of the default agent when several agents are listed) */
    path: string
    /** rows in this page */
    count: number
    /** Loopdesk: rows matching the filters before limit/offset */
    total: number
    hasMore: boolean
    nextOffset?: number
    /** OpenClaw's modelProvider/model/contextTokens; agentId/mainKey kept for older Loopdesk clients */
    defaults: { modelProvider: string | null; model: string | null; contextTokens: number | null; agentId: string; mainKey: string }
    sessions: SessionRow[]
  }
  'sessions.subscribe': { subscribed: true }
  'sessions.unsubscribe': { subscribed: false }
  'sessions.create': {
    ok: true
    key: string
    sessionId: string
    entry: SessionRow
    /** with message/task: whether its run was accepted, its runId, or why it was not */
    runStarted?: boolean
    runId?: string
    runError?: { code: string; message: string; details?: unknown; retryable?: boolean; retryAfterMs?: number }
    /** the first message was a bare /new or /reset: it started no run (runStarted false) and this is its reply */
    messages?: string[]
  }
  /** the new session's key; editorText: the forked-at message's text (OpenClaw's editorAttachments are not sent) */
  'sessions.fork': { sessionKey: string; editorText?: string }
  'sessions.patch': { ok: true; key: string; entry: SessionRow }
  'sessions.reset': { ok: true; key: string; entry: SessionRow; messages?: string[] }
  /** archived: where the transcript was moved to ([] when none was archived, e.g. deleteTranscript) */
  'sessions.delete': { ok: true; key: string; deleted: boolean; archived: string[] }
  'sessions.abort': { ok: true; abortedRunId: string | null; status: 'aborted' | 'no-active-run'; abortedRunIds?: string[]; clearedQueued?: number }
  'sessions.compact': { ok: true; key: string; compacted: boolean; reason?: string; tokensBefore?: number; tokensAfter?: number }
  'models.list': { models: ModelChoice[]; defaultModel?: string }
  'commands.list': { commands: ChatCommandInfo[] }
  'agents.list': {
    defaultId: string
    mainKey: string
    /** OpenClaw session scope; Loopdesk's is always SESSION_SCOPE (shared/session-key.ts), as in hello-ok */
    scope: 'per-sender' | 'global'
    agents: Array<{ id: string; workspace: string; model?: { primary?: string; fallbacks?: string[] } }>
  }
  'agent.identity.get': AgentIdentity
  'sessions.send': SessionSendResult
  'sessions.steer': SessionSendResult & { interruptedActiveRun: boolean }
  /** approvalReplay: with includeApprovals, the session's pending exec approvals */
  'sessions.messages.subscribe': { subscribed: true; key: string; approvalReplay?: SessionApprovalReplay }
  'sessions.messages.unsubscribe': { subscribed: false; key: string }
  'tools.catalog': {
    tools: ToolInfo[]
    // OpenClaw's catalog shape over the same tools (Loopdesk has no tool profiles: one "full" holds all);
    // optional in the type for older producers, the runtime always sends them
    agentId?: string
    profiles?: Array<{ id: 'full'; label: string }>
    groups?: Array<{
      id: string
      label: string
      source: 'core'
      tools: Array<{ id: string; label: string; description: string; source: 'core'; defaultProfiles: Array<'full'>; risk?: 'low' | 'medium' | 'high' }>
    }>
  }
  'config.get': {
    path: string
    exists: boolean
    valid: boolean
    hash: string
    config: Record<string, unknown>
    /** Loopdesk: while the file has problems (and parses), what it says — saves not in effect yet included; `config` is the last good one */
    fileConfig?: Record<string, unknown>
    issues: ConfigIssue[]
    secrets: Record<string, 'set' | 'not set'>
  }
  'config.patch': {
    ok: true
    hash: string
    config: Record<string, unknown>
    secrets: Record<string, 'set' | 'not set'>
    /** Loopdesk: problems the file still has (a save may fix some and keep others); the last good config stays in use while any remain */
    issues?: ConfigIssue[]
    /** Loopdesk: as config.get's, while problems remain */
    fileConfig?: Record<string, unknown>
  }
  'exec.approval.resolve': { ok: true; id: string; decision: ApprovalDecision }
  'loopdesk.events.recent': { events: AgentEvent[]; approvals: ExecApprovalRequest[] }
  /** partial: the time budget ran out before every transcript was read (the newest sessions are read first) */
  'loopdesk.sessions.search': { matches: SessionSearchMatch[]; partial: boolean }
  /** matches: the newest `limit` matching messages, oldest first; total: all of them (partial: the scan ran out of time) */
  /** `total` counts matching messages, `occurrences` the query's occurrences in them (both over the whole transcript) */
  'loopdesk.chat.find': { matches: ChatFindMatch[]; total: number; occurrences: number; partial: boolean }
  /** ok: the server listed its models (sorted by id); else why not. suggestedBaseUrl: the list was one level down (`/v1`) */
  'loopdesk.models.probe':
    | { ok: true; url: string; models: Array<{ id: string; contextWindow?: number }>; ms: number; suggestedBaseUrl?: string }
    | { ok: false; url: string; error: string; status?: number; ms: number }
  /** config.patch's result, the dot paths of the model refs that now name the new provider, and how many sessions' models moved too */
  'loopdesk.config.renameProvider': Results['config.patch'] & { movedRefs: string[]; movedSessions: number }
  'loopdesk.queue.list': { items: QueueItem[] }
  'loopdesk.queue.remove': { ok: true; removed: boolean }
  'loopdesk.queue.hold': { ok: true; ids: string[] }
  'loopdesk.queue.release': { ok: true; ids: string[] }
  /** the session's waiting message ids in their order now */
  'loopdesk.queue.reorder': { ok: true; ids: string[] }
  'loopdesk.prefs.get': Prefs
  'loopdesk.prefs.set': Prefs
}

export type ResultOf<M extends MethodName> = Results[M]

export const METHOD_NAMES = Object.keys(Schemas) as MethodName[]

/** Structured error codes (OpenClaw's ErrorShape codes plus a few local ones). */
export type ErrorCode =
  | 'INVALID_REQUEST'
  | 'UNAVAILABLE'
  | 'AGENT_TIMEOUT'
  | 'NOT_FOUND'
  | 'APPROVAL_NOT_FOUND'
  | 'FORBIDDEN'
  | 'CONFLICT'
  | 'STORAGE_ERROR'

export interface ErrorShape {
  code: ErrorCode
  message: string
  details?: unknown
  retryable?: boolean
  retryAfterMs?: number
}

export type Result<T> = { ok: true; data: T } | { ok: false; error: ErrorShape }
