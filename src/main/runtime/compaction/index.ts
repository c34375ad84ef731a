// Context compaction: estimate, plan (keep system messages, recent turns, tool pairs), summarize with the
// session's model, and a per-run controller (threshold check before each request, one overflow retry).
export {
  CHARS_PER_TOKEN,
  compactionThreshold,
  estimateContextTokens,
  estimateMessageTokens,
  shouldCompact,
  type AnyMessage,
} from './estimate'
export { SUMMARY_PREFIX, buildCompactedMessages, createSummaryMessage, isSummaryMessage, planCompaction, type CompactionPlan } from './plan'
export {
  SUMMARY_SYSTEM_PROMPT,
  buildSummaryPrompt,
  createStreamCompleter,
  renderConversation,
  summarize,
  type CompleteFn,
} from './summarize'
export { isContextOverflowError } from './overflow'
export { ContextTooLargeError, replyRoom, requestLimit } from './too-large'
export {
  CompactionController,
  type CompactionControllerOptions,
  type CompactionEntry,
  type CompactionOutcome,
  type CompactionReason,
} from './controller'
