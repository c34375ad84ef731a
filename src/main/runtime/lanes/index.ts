export { CommandQueue, LaneClearedError } from './command-queue'
export type { CommandQueueOptions, EnqueueOptions, LaneWaitExceeded } from './command-queue'
export { runInLanes, sessionLane, applyLaneConcurrency, GLOBAL_LANE, DEFAULT_MAX_CONCURRENT } from './run-in-lanes'
export type { LaneWait, LaneQueued, RunInLanesOptions } from './run-in-lanes'
