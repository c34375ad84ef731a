import { render } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { FakeBridge } from './bridge/fake-bridge'
import { Markdown } from './markdown/Markdown'
import { LANGUAGE_NAMES } from './markdown/languages'
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

  it('does one step per idle period: the highlighter, every grammar, number formatting, the lexer, the views, the lazy views', async () => {
    const queue: Array<() => void> = []
    performance.clearMarks(WARM_UP_DONE_MARK)
    warmUp(ctx(), (cb) => queue.push(cb))
    expect(performance.getEntriesByName(WARM_UP_DONE_MARK)).toHaveLength(0)
    let periods = 0
    // a step that loads a chunk queues the next one once the chunk is here
    await vi.waitFor(() => {
      while (queue.length) {
        queue.shift()!()
        periods++
      }
      expect(performance.getEntriesByName(WARM_UP_DONE_MARK)).toHaveLength(1)
    }, { timeout: 15_000 }) // the lazy chunks load slowly on a busy machine: waitFor's 1 s default flaked
    // highlighter + one period per grammar + formatter + lexer + views + lazy views, and a final one that marks it done
    expect(periods).toBe(1 + LANGUAGE_NAMES.length + 5)
    // the highlighter is loaded: a finished code block shows highlighted in its first render
    const { container } = render(<Markdown text={'```ts\nconst x = 1\n```'} final />)
    expect(container.querySelector('code .hljs-keyword')?.textContent).toBe('const')
  })
})
