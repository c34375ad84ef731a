// Reply shaping: what a finished run shows the user.
export { buildPayloads, errorDetail, formatToolErrorFallback, formatToolSummary, toolLabel } from './payloads'
export { isSilentPrefix, isSilentReply, SILENT_REPLY_TOKEN } from './silent'
export { isDuplicateOfSent, normalizeForDedupe } from './dedupe'
