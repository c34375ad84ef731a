import { describe, expect, it } from 'vitest'
import type { ToolItem } from '../state/types'
import { toolTiming } from './tool-timing'

const exec = (over: Partial<ToolItem>): ToolItem => ({
  kind: 'tool',
  key: 'tool:c1',
  runId: 'r1',
  ts: 1000,
  toolCallId: 'c1',
  name: 'exec',
  args: { command: 'echo hello' },
  status: 'done',
  startedAt: 1000,
  endedAt: 33_400,
  ...over,
})

describe('toolTiming', () => {
  it('a command approved after 30 s shows its own run time, the wait apart (live: the approval times)', () => {
    const t = toolTiming(exec({ approval: { decision: 'allow-once', resolvedBy: 'user', askedAt: 1100, resolvedAt: 33_300 } }), 0)
    expect(t).toEqual({ run: '100 ms', waited: '32.2 s' })
  })

  it("prefers exec's own measure of the command; after a reload the wait is what the call took beyond it", () => {
    const result = { content: [], details: { durationMs: 40, approval: 'allow-once' } }
    expect(toolTiming(exec({ result }), 0)).toEqual({ run: '40 ms', waited: '32.4 s' })
  })

  it('a call nobody was asked about shows its whole time, as before', () => {
    expect(toolTiming(exec({ name: 'read' }), 0)).toEqual({ run: '32.4 s' })
    const allowlisted = { content: [], details: { durationMs: 32_000, approval: 'allowlist' } }
    expect(toolTiming(exec({ result: allowlisted }), 0)).toEqual({ run: '32.0 s' })
  })

  it('while the approval waits, the clock runs; once answered and running, it counts from the answer', () => {
    expect(toolTiming(exec({ status: 'running', endedAt: undefined, approval: { askedAt: 1100 } }), 6000)).toEqual({ run: '5.0 s' })
    const running = exec({ status: 'running', endedAt: undefined, approval: { decision: 'allow-once', resolvedBy: 'user', askedAt: 1000, resolvedAt: 21_000 } })
    expect(toolTiming(running, 23_500)).toEqual({ run: '2.5 s', waited: '20.0 s' })
  })

  it('a denied call did not run: all its time was the wait', () => {
    const denied = exec({ status: 'failed', approval: { decision: 'deny', resolvedBy: 'user', askedAt: 1000, resolvedAt: 33_000 } })
    expect(toolTiming(denied, 0)).toEqual({ run: '', waited: '32.4 s' })
  })

  it('an instant answer (under a second) is not shown as a wait', () => {
    const quick = exec({ endedAt: 1600, approval: { decision: 'allow-always', resolvedBy: 'user', askedAt: 1000, resolvedAt: 1300 } })
    expect(toolTiming(quick, 0)).toEqual({ run: '300 ms' })
  })
})
