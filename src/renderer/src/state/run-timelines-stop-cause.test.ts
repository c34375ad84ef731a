// A run the gateway's shutdown stopped says so in the Inspector's timeline too (the footer does): from the
// lifecycle end's stopReason, or — when the end event never reached this window — from the conversation's footer.
import { describe, expect, it } from 'vitest'
import type { AnyEvent } from '../../../shared/events'
import type { LoggedEvent } from './event-log'
import { endedAsConversation, timelines } from './run-timelines'
import { stoppedText } from './stopped-text'
import type { RunItem } from './types'

const logged = (events: AnyEvent[]): LoggedEvent[] => events.map((event, id) => ({ id, receivedAt: id, event, stream: 'lifecycle', runId: 'r1' }))
const lifecycle = (data: Record<string, unknown>): AnyEvent => ({ event: 'agent', payload: { runId: 'r1', seq: 1, stream: 'lifecycle', ts: 5, data } }) as AnyEvent

describe('run timeline: stopped by the shutdown', () => {
  it('the lifecycle end with stopReason "shutdown" is a shutdown stop; a plain abort is a Stop', () => {
    const [shut] = timelines(logged([lifecycle({ phase: 'start' }), lifecycle({ phase: 'end', aborted: true, stopReason: 'shutdown' })]))
    expect(shut).toMatchObject({ outcome: 'stopped', stopCause: 'shutdown' })
    expect(stoppedText(shut)).toBe('Stopped: the gateway shut down')
    const [stop] = timelines(logged([lifecycle({ phase: 'start' }), lifecycle({ phase: 'end', aborted: true, stopReason: 'user' })]))
    expect(stop.stopCause).toBeUndefined()
    expect(stoppedText(stop)).toBe('Stopped')
  })

  it('a timeline without the end takes the cause from the footer', () => {
    const footer = { kind: 'run', runId: 'r1', status: 'stopped', stopCause: 'shutdown', endedAt: 9 } as unknown as RunItem
    expect(endedAsConversation({ runId: 'r1', tools: [] }, footer)).toMatchObject({ outcome: 'stopped', stopCause: 'shutdown', endedAt: 9 })
    expect(endedAsConversation({ runId: 'r1', tools: [] }, { ...footer, stopCause: undefined })).not.toHaveProperty('stopCause')
  })
})
