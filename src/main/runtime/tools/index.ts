// Public surface of the agent tools (imported by the embedded runner and the runtime facade).
export { createTools, toolCatalog } from './catalog'
export { toolDeclaration } from './spec'
export { ApprovalBroker } from './approvals'
export type { ApprovalBrokerOptions, ApprovalEvent, ApprovalOutcome, DetailedApprovals } from './approvals'
export { sanitizeToolResultForEvent, capToolResultForPersist, EVENT_TEXT_MAX_CHARS, PERSIST_TEXT_MAX_CHARS } from './sanitize'
export { toolMeta, isMessagingTool } from './meta'
export { matchesAllowlist } from './allowlist'
export { WorkspaceEscapeError } from './paths'
