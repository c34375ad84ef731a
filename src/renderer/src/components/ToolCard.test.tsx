// Tool cards as a person reads them: a write/edit's text as file lines or a diff, a failed call's reason and a
// running call's last output line on the collapsed card.
import { act, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { AppContext } from '../app-context'
import { FakeBridge } from '../bridge/fake-bridge'
import { Controller } from '../state/controller'
import { createAppStores } from '../state/stores'
import type { ToolItem } from '../state/types'
import { ToolCard } from './ToolCard'
import { preloadFileChange } from '../lazy-views'
import { PREVIEW_LINES } from './ToolFileView'

// the file views are a chunk of their own, preloaded while the app is idle (warm-up.tsx); here before the first card
beforeAll(async () => {
  await preloadFileChange()
})

function withApp(ui: React.ReactElement) {
  const stores = createAppStores()
  const controller = new Controller(new FakeBridge(), stores)
  const wrapper = ({ children }: { children: React.ReactNode }) => (
    <AppContext.Provider value={{ controller, stores }}>{children}</AppContext.Provider>
  )
  return render(ui, { wrapper })
}

const tool = (over: Partial<ToolItem> = {}): ToolItem => ({
  kind: 'tool',
  key: 'tool:c1',
  runId: 'r1',
  ts: 1,
  toolCallId: 'c1',
  name: 'exec',
  args: { command: 'ls', cwd: '/work' },
  status: 'done',
  startedAt: 1000,
  endedAt: 1100,
  ...over,
})

const text = (t: string) => ({ content: [{ type: 'text', text: t }] })

async function expand(name: string) {
  await userEvent.setup().click(screen.getByRole('button', { name: new RegExp(name) }))
  return screen.getByRole('group', { name: `Tool ${name}` })
}

afterEach(() => vi.useRealTimers())

describe('write and edit cards', () => {
  it('an edit shows a line diff of old → new, each line named for a screen reader', async () => {
    withApp(
      <ToolCard
        item={tool({
          name: 'edit',
          args: { path: 'notes.txt', oldText: 'alpha\nbeta\ngamma', newText: 'alpha\nBETA (changed)\ngamma' },
          result: text('Edited notes.txt'),
        })}
      />,
    )
    const card = await expand('edit')
    const diff = within(card).getByRole('list', { name: 'Change: 1 lines removed, 1 added' })
    const rows = within(diff).getAllByRole('listitem')
    expect(rows.map((r) => r.textContent)).toEqual([
      ' unchanged: alpha',
      '−removed: beta',
      '+added: BETA (changed)',
      ' unchanged: gamma',
    ])
    expect(rows[1]).toHaveClass('tool-line-removed')
    expect(rows[2]).toHaveClass('tool-line-added')
    // the visual marks are hidden from screen readers, the words are not shown
    expect(rows[1].querySelector('.tool-line-mark')).toHaveAttribute('aria-hidden', 'true')
    expect(rows[1].querySelector('.sr-only')).toHaveTextContent('removed:')
    // no escaped JSON of the texts; the path stays as an argument
    expect(card.textContent).not.toContain('oldText')
    expect(card.textContent).toContain('"path": "notes.txt"')
  })

  it('a write shows the file text with line numbers and its size, not escaped JSON', async () => {
    withApp(
      <ToolCard
        item={tool({
          name: 'write',
          args: { path: 'notes.txt', content: 'alpha\nbeta\ngamma\n' },
          result: text('Created notes.txt (17 bytes)'),
        })}
      />,
    )
    const card = await expand('write')
    const file = within(card).getByRole('list', { name: 'File content, 3 lines' })
    const rows = within(file).getAllByRole('listitem')
    expect(
      rows.map((r) => [
        r.querySelector('.tool-line-no')!.textContent,
        r.querySelector('.tool-line-text')!.textContent,
      ]),
    ).toEqual([
      ['1', 'alpha'],
      ['2', 'beta'],
      ['3', 'gamma'],
    ])
    expect(card).toHaveTextContent('3 lines · 17 B')
    expect(card.textContent).not.toContain('\\n')
    expect(card).toHaveTextContent('Created notes.txt (17 bytes)')
    expect(within(card).getByRole('button', { name: 'Copy content' })).toBeInTheDocument()
  })

  it('a long write is shown in part, with Show all', async () => {
    const content = Array.from({ length: PREVIEW_LINES + 50 }, (_, i) => `row ${i + 1}`).join('\n')
    withApp(<ToolCard item={tool({ name: 'write', args: { path: 'big.txt', content } })} />)
    const card = await expand('write')
    expect(within(card).getAllByRole('listitem')).toHaveLength(PREVIEW_LINES)
    await userEvent
      .setup()
      .click(within(card).getByRole('button', { name: `Show all (${PREVIEW_LINES + 50} lines)` }))
    expect(within(card).getAllByRole('listitem')).toHaveLength(PREVIEW_LINES + 50)
  })

  it('hidden characters in an edit are marked, with a warning', async () => {
    withApp(
      <ToolCard
        item={tool({ name: 'edit', args: { path: 'a.sh', oldText: 'rm x', newText: 'rm \u202ey' } })}
      />,
    )
    const card = await expand('edit')
    expect(card.querySelector('.tool-diff .hidden-char-bidi')).not.toBeNull()
    expect(card.textContent).not.toMatch(/\u202e/)
    expect(within(card).getByRole('note')).toHaveTextContent('in this edit')
  })
})

describe('collapsed card', () => {
  it('a failed call shows the first line of its error', () => {
    withApp(
      <ToolCard
        item={tool({
          name: 'edit',
          args: { path: 'n.txt', oldText: 'x', newText: 'y' },
          status: 'failed',
          result: text('\noldText was not found in "n.txt".\nHint: …'),
        })}
      />,
    )
    const peek = screen.getByRole('group', { name: 'Tool edit' }).querySelector('.tool-error-peek')!
    expect(peek).toHaveTextContent('Error: oldText was not found in "n.txt".')
    expect(peek.textContent).not.toContain('Hint')
  })

  it('the error line marks hidden characters; a denied call shows none', () => {
    const { rerender } = withApp(
      <ToolCard item={tool({ status: 'failed', result: 'no such file: a\u200bb' })} />,
    )
    const card = screen.getByRole('group', { name: 'Tool exec' })
    expect(card.querySelector('.tool-error-peek .hidden-char')).not.toBeNull()
    rerender(<ToolCard item={tool({ status: 'failed', result: 'exec denied by user' })} />)
    expect(card.querySelector('.tool-error-peek')).toBeNull()
  })

  it('a running command shows its last output line, a few times a second at most', () => {
    vi.useFakeTimers({ now: 10_000 })
    const running = (out: string) => tool({ status: 'running', endedAt: undefined, partial: text(out) })
    const { rerender } = withApp(<ToolCard item={running('tick 1\n')} />)
    const card = screen.getByRole('group', { name: 'Tool exec' })
    const peek = () => card.querySelector('.tool-line-peek')?.textContent
    expect(peek()).toBe('Latest output: tick 1')
    // updates within 250 ms wait; the newest shows at the window's end
    rerender(<ToolCard item={running('tick 1\ntick 2\n')} />)
    rerender(<ToolCard item={running('tick 1\ntick 2\ntick 3\n')} />)
    expect(peek()).toBe('Latest output: tick 1')
    act(() => void vi.advanceTimersByTime(260))
    expect(peek()).toBe('Latest output: tick 3')
    // done: no peek (the result is in the card)
    rerender(<ToolCard item={tool({ result: text('tick 3\n') })} />)
    expect(peek()).toBeUndefined()
  })
})
