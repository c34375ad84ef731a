// Public surface of the Electron-free runtime (used by the shell, the headless gateway and the CLI).
export { createRuntime, LOOPDESK_VERSION } from './runtime'
export type { Runtime, RuntimeOptions } from './runtime'
export type { RuntimeCore, TrackedRun, ConfigSource, PrefsProvider } from './handlers-context'
export type {
  ActiveRunHandle,
  BeforeAgentStartResult,
  BeforeToolCallResult,
  CommandHookEvent,
  CompactOutcome,
  CompactRequest,
  RunEndInfo,
  RunHookContext,
  RunHooks,
  RuntimeHooks,
} from './runner/hooks'
export type { RunOutcome, RunRequest } from './runner/embedded-runner'
export { resolveStateDir } from './config'
