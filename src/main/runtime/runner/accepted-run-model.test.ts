// The session's model as a message was accepted is journaled with it: a paused message restored after a restart
// runs on that model too, not on one chosen after it was sent.
import { describe, expect, it } from 'vitest'
import { acceptedRunOf, parseAcceptedRun } from './accepted-run'

const roundTrip = (run: Parameters<typeof acceptedRunOf>[0]) => parseAcceptedRun(JSON.parse(JSON.stringify(acceptedRunOf(run) ?? null)), undefined)

describe('accepted run: sessionModel', () => {
  it('kept through the journal, "none chosen" (null) included; anything else is dropped', () => {
    expect(roundTrip({ sessionModel: 'mockant/c1' })).toEqual({ sessionModel: 'mockant/c1' })
    expect(roundTrip({ sessionModel: null })).toEqual({ sessionModel: null })
    expect(roundTrip({})).toBeUndefined()
    expect(parseAcceptedRun({ sessionModel: 7, thinking: 'low' }, undefined)).toEqual({ thinking: 'low' })
  })
})
