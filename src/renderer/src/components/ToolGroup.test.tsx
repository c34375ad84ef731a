// A reply with many tool calls: one group row, its failed call one click away, the Inspector's link to a card.
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { preloadFindBar, preloadInspector, preloadToolGroup } from '../lazy-views'
import { entryIdOf } from '../state/fork-point'
import { LONG, renderApp } from '../test-utils'

// the group row and the Inspector are chunks of their own: loaded first, as the app's idle warm-up does
beforeAll(async () => {
  await preloadToolGroup()
  await preloadInspector()
  await preloadFindBar()
})
beforeEach(() => localStorage.clear())
afterEach(() => vi.unstubAllGlobals())

const steps = Array.from({ length: 10 }, (_, i) => ({
  kind: 'tool' as const,
  name: i % 3 ? 'read' : 'exec',
  args: { path: `file-${i}.txt` },
  result: { content: [{ type: 'text', text: i === 6 ? 'ENOENT: no such file' : `text ${i}` }] },
  ...(i === 6 ? { isError: true } : {}),
}))

async function tenCalls() {
  const app = await renderApp({ scripts: [{ steps: [...steps, { kind: 'text' as const, text: 'All read.' }] }] })
  const user = userEvent.setup()
  await user.type(screen.getByRole('textbox', { name: 'Message' }), 'read them{Enter}')
  await screen.findByText('All read.', undefined, LONG)
  // the run's end too: events arriving after the text (lifecycle end, chat final) re-render the Inspector's rows,
  // and a link captured before that was detached when clicked (a loaded box saw it)
  const log = screen.getByRole('log', { name: 'Conversation' })
  await waitFor(() => expect(within(log).getAllByRole('status').at(-1)?.textContent).toMatch(/^Done/), LONG)
  // and the reconcile with the saved transcript that the run's end schedules (its user message read back): it
  // replaces the transcript, so a test that edits the transcript after this sees its edit kept (CI: a late
  // reconcile brought back a call the narrow-window case had taken out)
  await waitFor(() => {
    const t = app.stores.runs.getState().transcripts['agent:main:main']
    const sent = t?.items.find((it) => it.kind === 'user')
    expect(sent && entryIdOf(t, sent.key)).toBeTruthy()
  }, LONG)
  return { ...app, user }
}

describe('tool call groups', () => {
  it('ten calls are one group row; "Jump to failed" opens the group and the failed card, focused', async () => {
    const { user } = await tenCalls()
    const group = await screen.findByRole('group', { name: '10 tool calls · 1 failed' })
    const toggle = within(group).getByRole('button', { name: /10 tool calls/ })
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
    expect(screen.queryByRole('group', { name: 'Tool exec' })).toBeNull()
    expect(within(group).getByRole('list', { name: 'Failed calls' })).toHaveTextContent('Failed: exec file-6.txt')

    await user.click(within(group).getByRole('button', { name: 'Jump to failed' }))
    await waitFor(() => expect(toggle).toHaveAttribute('aria-expanded', 'true'))
    const cards = await screen.findAllByRole('group', { name: /^Tool / })
    expect(cards).toHaveLength(10)
    const failed = cards[6]
    const head = within(failed).getByRole('button', { name: /exec/ })
    await waitFor(() => expect(head).toHaveAttribute('aria-expanded', 'true'))
    expect(within(failed).getByText('ENOENT: no such file')).toBeInTheDocument()
    await waitFor(() => expect(head).toHaveFocus())
    // closing the group again leaves one row
    await user.click(toggle)
    await waitFor(() => expect(screen.queryAllByRole('group', { name: /^Tool / })).toHaveLength(0))
  })

  it('an Inspector tool row shows its card in the conversation: the group opened, the card open and focused', async () => {
    const { user, controller } = await tenCalls()
    await screen.findByRole('group', { name: '10 tool calls · 1 failed' })
    controller.setInspectorOpen(true)
    const inspector = await screen.findByRole('complementary', { name: 'Inspector' })
    const links = await within(inspector).findAllByRole('button', { name: 'Show in conversation: read call' })
    // the newest event first: the last read call's (the 9th call's) result
    await user.click(links[0])
    await waitFor(() => expect(screen.getAllByRole('group', { name: /^Tool / })).toHaveLength(10))
    const card = screen.getAllByRole('group', { name: /^Tool / })[8]
    const head = within(card).getByRole('button', { name: /read/ })
    await waitFor(() => expect(head).toHaveAttribute('aria-expanded', 'true'))
    expect(within(card).getByText(/text 8/)).toBeInTheDocument()
    await waitFor(() => expect(head).toHaveFocus())
  })

  it('find (Ctrl/Cmd+F) reaches a match inside a closed group: the group and the card open on it', async () => {
    await tenCalls()
    await screen.findByRole('group', { name: '10 tool calls · 1 failed' })
    fireEvent.keyDown(window, { key: 'f', code: 'KeyF', ctrlKey: true })
    const bar = await screen.findByRole('search', { name: 'Find in conversation' })
    await userEvent.setup({ delay: null }).type(within(bar).getByRole('searchbox'), 'file-7.txt')
    const found = () => document.querySelector('[data-found]')
    // the mark lands first, then the group opens and its rows mount again: wait for the card open under it
    await waitFor(() => {
      expect(found()).not.toBeNull()
      const card = within(found() as HTMLElement).getByRole('group', { name: 'Tool read' })
      expect(within(card).getByRole('button', { name: /read/ })).toHaveAttribute('aria-expanded', 'true')
    }, LONG)
    expect(screen.getByRole('button', { name: /10 tool calls/ })).toHaveAttribute('aria-expanded', 'true')
  })

  it('in a narrow window the Inspector drawer closes to show the card, and a call not loaded is said so', async () => {
    const { user, controller, stores } = await tenCalls()
    vi.stubGlobal('matchMedia', (query: string) => ({ matches: true, media: query, addEventListener() {}, removeEventListener() {} }))
    controller.setInspectorOpen(true)
    const inspector = await screen.findByRole('complementary', { name: 'Inspector' })
    // looked up at each click: a store change re-renders the rows, and a link held from before is detached (CI)
    const links = () => within(inspector).getAllByRole('button', { name: 'Show in conversation: read call' })
    await waitFor(() => expect(links().length).toBeGreaterThan(1), LONG)
    // a call whose card is not in what the conversation holds (an older page): nothing to scroll to
    const t = stores.runs.getState().transcripts['agent:main:main']!
    const pathOf = (it: (typeof t.items)[number]) => (it.kind === 'tool' ? (it.args as { path: string }).path : undefined)
    stores.runs.setState({ transcripts: { 'agent:main:main': { ...t, items: t.items.filter((it) => pathOf(it) !== 'file-8.txt') } } })
    await user.click(links()[0])
    await waitFor(() => expect(within(inspector).getByRole('status')).toHaveTextContent('Not in the loaded part of the conversation'), LONG)
    expect(stores.inspector.getState().open).toBe(true)
    // one that is: the drawer, which covers the conversation, closes
    await user.click(links().at(-1)!)
    await waitFor(() => expect(stores.inspector.getState().open).toBe(false), LONG)
    // the oldest row: the first read call's start
    const shown = stores.runs.getState().transcripts['agent:main:main']!.items.find((it) => it.key === stores.ui.getState().reveal?.key)
    expect(shown && pathOf(shown)).toBe('file-1.txt')
  })

  it('a call waiting for approval is said so in its closed group; answering it focuses the group row', async () => {
    const reads = steps.filter((st) => st.name === 'read' && !st.isError).slice(0, 4)
    const exec = { kind: 'tool' as const, name: 'exec', args: { command: 'rm -rf build' }, result: { content: [{ type: 'text', text: 'removed' }] }, approval: true }
    await renderApp({ scripts: [{ steps: [...reads, exec, { kind: 'text' as const, text: 'Cleaned.' }] }] })
    const user = userEvent.setup({ delay: null })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'clean up{Enter}')
    const group = await screen.findByRole('group', { name: '5 tool calls · 1 waiting for approval' }, LONG)
    expect(within(group).getByRole('list', { name: 'Calls waiting for approval' })).toHaveTextContent('Waiting for approval: exec rm -rf build')
    expect(group).not.toHaveTextContent('Running:')
    const card = screen.getByRole('group', { name: 'Approval required' })
    within(card).getByRole('button', { name: 'Approve' }).focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(card).not.toBeInTheDocument())
    // not the message box: the row holding the call, still closed
    const toggle = screen.getByRole('button', { name: /^5 tool calls/ })
    await waitFor(() => expect(toggle).toHaveFocus())
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
  })
})
