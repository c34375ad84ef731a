import { describe, expect, it } from 'vitest'
import { normalizeQueueMode, QUEUE_MODE_NAMES } from './queue-mode'

describe('normalizeQueueMode', () => {
  it('reads OpenClaw 2026.9\'s names: the modes, their aliases, and April\'s retired ones as v4 does', () => {
    expect(normalizeQueueMode('steer-backlog')).toBe('followup')
    expect(normalizeQueueMode('Steer+Backlog')).toBe('followup')
    expect(normalizeQueueMode(' steer_backlog ')).toBe('followup')
    expect(normalizeQueueMode('queue')).toBe('steer')
    expect(normalizeQueueMode('queued')).toBe('steer')
    expect(normalizeQueueMode('interrupts')).toBe('interrupt')
    expect(normalizeQueueMode('COLLECT')).toBe('collect')
    expect(normalizeQueueMode('backlog')).toBeUndefined()
    expect(normalizeQueueMode('toString')).toBeUndefined()
    expect(normalizeQueueMode(3)).toBeUndefined()
    for (const name of QUEUE_MODE_NAMES) expect(normalizeQueueMode(name)).toBeDefined()
  })
})
