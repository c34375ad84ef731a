// Queue modes (steer / followup / collect / interrupt) for chat messages that arrive during a run.
export { SessionQueues, type QueueDeps, type SubmitOptions, type SubmitResult } from './session-queues'
export {
  DEFAULT_QUEUE_SETTINGS,
  normalizeQueueMode,
  resolveQueueSettings,
  type DropPolicy,
  type QueueSettings,
  type SessionQueueOverrides,
} from './settings'
export { COLLECT_TITLE, buildCollectPrompt, buildOverflowNotice, summarizeLine } from './prompt'
