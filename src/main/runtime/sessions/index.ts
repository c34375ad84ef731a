export { SessionStore } from './session-store'
export type { SessionStoreOptions } from './session-store'
export type { SessionMutator } from './store-core'
export { STORE_LOCK_STALE_MS, STORE_LOCK_TIMEOUT_MS, DEFAULT_DEFER_MS, flushAllStoresSync } from './store-core'
export { Transcript, parseTranscript, sessionHeader } from './transcript'
export type { TranscriptHeader, TranscriptOptions, TranscriptRead } from './transcript'
export {
  acquireWriteLock,
  tryAcquireWriteLockSync,
  releaseAllLocksSync,
  holdsWriteLock,
  DEFAULT_LOCK_STALE_MS,
  DEFAULT_LOCK_TIMEOUT_MS,
} from './write-lock'
export type { ReleaseLock, WriteLockOptions } from './write-lock'
export {
  newSessionId,
  isValidSessionId,
  assertSessionId,
  sessionsDir,
  sessionStorePath,
  transcriptFile,
  archivedTranscriptFile,
} from './paths'
export { toSessionRow } from './session-row'
export { writeFileAtomicSync, writeFileAtomic } from './atomic-write'
export type { AtomicWriteOptions } from './atomic-write'
export { isPidAlive } from './process-info'
