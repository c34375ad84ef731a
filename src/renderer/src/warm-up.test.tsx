import { describe, expect, it } from 'vitest'
import { FakeBridge } from './bridge/fake-bridge'
import { highlighterLanguages } from './markdown/highlight'
import { Controller } from './state/controller'
import { createAppStores } from './state/stores'
import { renderSample, WARM_UP_DONE_MARK, warmUp } from './warm-up'

function ctx() {
  const stores = createAppStores()
  return { stores, controller: new Controller(new FakeBridge(), stores, (cb) => setTimeout(cb, 0)) }
}

describe('idle warm-up', () => {
  it('renders the sample views off-screen and leaves nothing behind', () => {
    const before = document.body.innerHTML
    expect(() => renderSample(ctx())).not.toThrow()
    expect(document.body.innerHTML).toBe(before)
  })

  it('does one step per idle period: every grammar, number formatting, the lexer, then the views', () => {
    const queue: Array<() => void> = []
    performance.clearMarks(WARM_UP_DONE_MARK)
    warmUp(ctx(), (cb) => queue.push(cb))
    expect(performance.getEntriesByName(WARM_UP_DONE_MARK)).toHaveLength(0)
    let periods = 0
    while (queue.length) {
      queue.shift()!()
      periods++
    }
    // one period per grammar + formatter + lexer + views, and a final one that marks it done
    expect(periods).toBe(highlighterLanguages().length + 4)
    expect(performance.getEntriesByName(WARM_UP_DONE_MARK)).toHaveLength(1)
  })
})
