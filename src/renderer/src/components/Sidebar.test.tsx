import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { FakeBridge } from '../bridge/fake-bridge'
import { LONG, renderApp, settle } from '../test-utils'
import { preloadSessionMenu } from '../lazy-views'

// a row's "…" menu is a chunk of its own: loaded first, as the idle warm-up does
beforeAll(async () => {
  await preloadSessionMenu()
})

/** Opens a sidebar row's actions menu and picks one of its items. */
async function pickAction(user: ReturnType<typeof userEvent.setup>, title: string, item: string) {
  await user.click(within(screen.getByRole('navigation', { name: 'Sessions' })).getByRole('button', { name: `Actions for ${title}` }))
  await user.click(screen.getByRole('menuitem', { name: item }))
}

beforeEach(() => localStorage.clear())

const seed = [
  { key: 'agent:main:main', label: 'Main', messages: 4 },
  { key: 'agent:main:taxes', label: 'Tax questions', messages: 2 },
]

describe('sessions sidebar', () => {
  it('lists sessions with status and switches between them, restoring each transcript', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({ seed })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    expect(within(nav).getByText('Main')).toBeInTheDocument()
    expect(within(nav).getByText('Tax questions')).toBeInTheDocument()
    const log = () => screen.getByRole('log', { name: 'Conversation' })
    await waitFor(() => expect(within(log()).getAllByText(/Question \d/).length).toBeGreaterThan(0))
    // The virtualized list settles over a few frames (measuring rows, sticking to the bottom): compare
    // transcripts only once the text stopped changing.
    const settled = async () => {
      let prev: string | null = null
      await waitFor(
        () => {
          const cur = log().textContent
          const same = cur === prev
          prev = cur
          expect(same).toBe(true)
        },
        { interval: 100, timeout: 5000 },
      )
      return prev
    }
    const before = await settled()
    await user.click(within(nav).getByText('Tax questions'))
    await waitFor(() => expect(within(log()).getAllByText(/Question 1/)).toHaveLength(1))
    await user.click(within(nav).getByText('Main'))
    await waitFor(() => expect(within(log()).getAllByText(/Question \d/).length).toBeGreaterThan(0))
    // jsdom has no layout, so the virtualizer may render a different window of rows after switching back:
    // the same transcript means one rendering extends the other (same order, nothing duplicated or lost).
    const after = (await settled()) ?? ''
    const first = before ?? ''
    expect(after.startsWith(first) || first.startsWith(after), `${first}\n---\n${after}`).toBe(true)
    expect(after.match(/Question 1:/g)).toHaveLength(1)
  })

  it('the last-message preview reads as text, without markdown syntax', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({ tickMs: 5, chunkChars: 40, scripts: [{ steps: [{ kind: 'text', text: 'Here is a **short** answer:\n\n- one\n- `two`' }] }] })
    await user.type(screen.getByRole('textbox', { name: /message/i }), 'hello{Enter}')
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    await waitFor(() => expect(within(nav).getByText('Here is a short answer: one two')).toBeInTheDocument(), LONG)
  })

  it('shows Running while a run is active, live via sessions.changed', async () => {
    const user = userEvent.setup({ delay: null })
    // the run streams a little, then waits for Stop: it cannot end on its own before it is seen running
    const { bridge, stores } = await renderApp({ tickMs: 20, seed, scripts: [{ steps: [{ kind: 'text', text: 'Working on it' }, { kind: 'untilAborted' }] }] })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const main = () => within(nav).getByText('Main').closest('li')
    // seeded sessions are listed in seed order, so Main is the one open
    expect(stores.sessions.getState().selectedKey).toBe('agent:main:main')
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'write something long{Enter}')
    await waitFor(() => expect(main()).toHaveTextContent('Running'), LONG)
    expect(within(nav).getByText('Tax questions').closest('li')).toHaveTextContent('Idle')
    await act(() => bridge.abort({ sessionKey: 'agent:main:main' }))
    await waitFor(() => expect(main()).toHaveTextContent('Idle'), LONG)
    // it went idle because of the Stop, not because the reply happened to end
    const footers = () => within(screen.getByRole('log', { name: 'Conversation' })).getAllByRole('status').map((e) => e.textContent ?? '')
    await waitFor(() => expect(footers().some((t) => t.startsWith('Stopped'))).toBe(true), LONG)
  })

  it('the Reset / Delete confirmation says a reply being written is stopped, as the session is while it is open', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp({ tickMs: 20, seed, scripts: [{ steps: [{ kind: 'text', text: 'Working on it' }, { kind: 'untilAborted' }] }] })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'write something long{Enter}')
    await waitFor(() => expect(within(nav).getByText('Main').closest('li')).toHaveTextContent('Running'), LONG)
    await pickAction(user, 'Main', 'Reset')
    const dialog = screen.getByRole('alertdialog', { name: 'Reset session?' })
    expect(dialog).toHaveTextContent('will be cleared and a fresh session started. The reply being written is stopped.')
    // the reply ends while the dialog is open: it no longer says so
    await act(() => bridge.abort({ sessionKey: 'agent:main:main' }))
    await waitFor(() => expect(dialog).not.toHaveTextContent('The reply being written'), LONG)
    expect(dialog).toHaveTextContent('will be cleared and a fresh session started.')
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    // an idle session's delete says nothing of it
    await pickAction(user, 'Tax questions', 'Delete')
    const idle = screen.getByRole('alertdialog', { name: 'Delete session?' })
    expect(idle).toHaveTextContent('will be deleted. This cannot be undone.')
    expect(idle).not.toHaveTextContent(/stopped|waiting/)
  })

  it('a session list built before a run ended (or a session was created or deleted) does not undo what events said since', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge, controller } = await renderApp({ tickMs: 20, seed, scripts: [{ steps: [{ kind: 'text', text: 'Working on it' }, { kind: 'untilAborted' }] }] })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const main = () => within(nav).getByText('Main').closest('li')
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'write something long{Enter}')
    await waitFor(() => expect(main()).toHaveTextContent('Running'), LONG)
    // a list taken now reaches the window only after the run stopped and another session was created
    const list = bridge.sessionsList.bind(bridge)
    let deliver: (() => void) | undefined
    bridge.sessionsList = async (p) => {
      const r = await list(p)
      await new Promise<void>((resolve) => (deliver = resolve))
      return r
    }
    const loading = controller.loadSessions()
    await waitFor(() => expect(deliver).toBeDefined())
    await act(() => bridge.abort({ sessionKey: 'agent:main:main' }))
    await waitFor(() => expect(main()).toHaveTextContent('Idle'), LONG)
    await act(async () => void (await bridge.sessionsCreate({ label: 'Made meanwhile' })))
    await waitFor(() => expect(within(nav).getByText('Made meanwhile')).toBeInTheDocument())
    await act(async () => void (await bridge.sessionsDelete({ key: 'agent:main:taxes' })))
    await waitFor(() => expect(within(nav).queryByText('Tax questions')).toBeNull())
    deliver!()
    await act(() => loading)
    expect(main()).toHaveTextContent('Idle')
    expect(within(nav).getByText('Made meanwhile')).toBeInTheDocument()
    expect(within(nav).queryByText('Tax questions')).toBeNull()
  })

  it('seeded sessions are listed in seed order however slowly the clock ticks while seeding', async () => {
    let now = 1_000_000
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => (now += 7)) // a loaded machine
    try {
      const r = await new FakeBridge({ seed }).sessionsList({})
      expect(r.ok && r.data.sessions.map((s) => s.key)).toEqual(['agent:main:main', 'agent:main:taxes'])
    } finally {
      clock.mockRestore()
    }
  })

  it('creates, renames, resets and deletes (with confirmation)', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp({ seed })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    await user.click(within(nav).getByRole('button', { name: 'New session' }))
    await waitFor(() => expect(within(nav).getAllByRole('listitem')).toHaveLength(3))
    expect(screen.getByText('Start a conversation')).toBeInTheDocument()

    await pickAction(user, 'Tax questions', 'Rename')
    const input = within(nav).getByRole('textbox', { name: 'Session name' })
    await user.clear(input)
    await user.type(input, 'Taxes 2026{Enter}')
    await waitFor(() => expect(within(nav).getByText('Taxes 2026')).toBeInTheDocument())

    await pickAction(user, 'Taxes 2026', 'Delete')
    const dialog = screen.getByRole('alertdialog', { name: 'Delete session?' })
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(within(nav).getByText('Taxes 2026')).toBeInTheDocument()
    expect(bridge.calls.some((c) => c.name === 'sessionsDelete')).toBe(false)

    await pickAction(user, 'Taxes 2026', 'Delete')
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(within(nav).queryByText('Taxes 2026')).not.toBeInTheDocument())

    await user.click(within(nav).getByText('Main'))
    await waitFor(() => expect(within(screen.getByRole('log')).getAllByText(/Question/).length).toBeGreaterThan(0))
    // the main session is cleared by Reset; it offers no Delete (the runtime refuses it)
    await user.click(within(nav).getByRole('button', { name: 'Actions for Main' }))
    expect(screen.queryByRole('menuitem', { name: 'Delete' })).toBeNull()
    await user.keyboard('{Escape}')
    await pickAction(user, 'Main', 'Reset')
    await user.click(within(screen.getByRole('alertdialog', { name: 'Reset session?' })).getByRole('button', { name: 'Reset' }))
    await waitFor(() => expect(screen.getByText('Start a conversation')).toBeInTheDocument())
  })

  it('rename starts from the current name, selected, and does not move the session', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({ seed: [...seed, { key: 'agent:main:trip', messages: 2 }] })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const titles = () => within(nav).getAllByRole('listitem').map((li) => li.querySelector('.session-title')?.textContent)
    await waitFor(() => expect(titles()).toHaveLength(3))
    const before = titles()
    const unnamed = before[2]!
    expect(unnamed).not.toBe('trip') // named after its first message, not by a label
    await pickAction(user, unnamed, 'Rename')
    const input = within(nav).getByRole<HTMLInputElement>('textbox', { name: 'Session name' })
    expect(input.value).toBe(unnamed)
    expect(input).toHaveFocus()
    expect([input.selectionStart, input.selectionEnd]).toEqual([0, unnamed.length])
    await user.keyboard('Road trip{Enter}')
    await waitFor(() => expect(titles()).toEqual([before[0], before[1], 'Road trip']))
    await settle()
    expect(titles()).toEqual([before[0], before[1], 'Road trip'])
  })

  it('searches by label and by message content', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp({ seed })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const search = within(nav).getByRole('searchbox', { name: 'Search sessions' })
    await user.type(search, 'tax')
    expect(within(nav).queryByText('Main')).not.toBeInTheDocument()
    expect(within(nav).getByText('Tax questions')).toBeInTheDocument()
    await user.clear(search)
    await user.type(search, 'part 2 work') // only in Main's messages
    await waitFor(() => expect(within(nav).getByText('Main')).toBeInTheDocument())
    expect(within(nav).queryByText('Tax questions')).not.toBeInTheDocument()
    expect(bridge.calls.filter((c) => c.name === 'sessionsList').at(-1)!.params).toMatchObject({ search: 'part 2 work' })
    // found by its messages (loopdesk.sessions.search): the row shows the matching message, not its preview
    expect(bridge.calls.filter((c) => c.name === 'sessionsSearch').at(-1)!.params).toMatchObject({ query: 'part 2 work' })
    const main = within(nav).getByText('Main').closest('li')!
    expect(within(main).getByText(/part 2 work/i)).toHaveClass('session-snippet')
    await user.clear(search)
    await waitFor(() => expect(within(nav).getByText('Tax questions')).toBeInTheDocument())
    expect(within(nav).queryByText(/part 2 work/i)).not.toBeInTheDocument()
  })
})

describe('content search in tool calls and tool output', () => {
  it('finds a session by a tool call argument or by what the tool returned', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({
      seed,
      tickMs: 5,
      scripts: [
        {
          steps: [
            { kind: 'tool', name: 'exec', args: { command: 'grep -r zanzibar-key ./config' }, result: { content: [{ type: 'text', text: 'config/app.yml: quokka-endpoint' }] }, durationMs: 5 },
            { kind: 'text', text: 'Done.' },
          ],
        },
      ],
    })
    await user.type(screen.getByRole('textbox', { name: /message/i }), 'look it up{Enter}')
    await waitFor(() => expect(within(screen.getByRole('log')).getByText('Done.')).toBeInTheDocument(), LONG)
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const search = within(nav).getByRole('searchbox', { name: 'Search sessions' })
    for (const [q, shown] of [
      ['zanzibar-key', 'exec: grep -r zanzibar-key ./config'],
      ['quokka', 'config/app.yml: quokka-endpoint'],
    ]) {
      await user.clear(search)
      await user.type(search, q)
      await waitFor(() => expect(within(nav).getByText(shown)).toHaveClass('session-snippet'))
      expect(within(nav).queryByText('Tax questions')).not.toBeInTheDocument()
    }
  })
})

describe('compact', () => {
  it('summarizes the older messages through sessions.compact, says how much it saved, and shows the summary', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp({ seed })
    const log = screen.getByRole('log')
    // seeded Main: 4 messages (2 turns); the first turn's question is on screen
    await waitFor(() => expect(within(log).getAllByText(/Question/).length).toBe(2))
    await pickAction(user, 'Main', 'Compact')
    expect(await screen.findByText(/Compacted “Main” \(\d+ → \d+ tokens\)/)).toBeInTheDocument()
    expect(bridge.calls.filter((c) => c.name === 'sessionsCompact').at(-1)!.params).toEqual({ key: 'agent:main:main' })
    expect(screen.queryByText(/Compacting “Main”/)).toBeNull() // the outcome replaced the note
    // the transcript was loaded again: the summary in place of the first turn
    await waitFor(() => expect(within(log).getAllByText(/Question/).length).toBe(1))
    expect(within(log).getByText(/Summary of 2 earlier messages/)).toBeInTheDocument()

    // a session too short to compact says so and keeps its messages
    await pickAction(user, 'Tax questions', 'Compact')
    expect(await screen.findByText(/Nothing to compact in “Tax questions”: the conversation is too short/)).toBeInTheDocument()
  })
})

describe('export', () => {
  it('Export as Markdown downloads the whole conversation, named after the session', async () => {
    const saved: Array<{ filename: string; text: string }> = []
    const download = await import('../lib/download')
    const spy = vi.spyOn(download, 'downloadText').mockImplementation((filename, text) => void saved.push({ filename, text }))
    try {
      const user = userEvent.setup({ delay: null })
      const { bridge } = await renderApp({ seed })
      await pickAction(user, 'Tax questions', 'Export as Markdown')
      await waitFor(() => expect(saved).toHaveLength(1))
      expect(saved[0].filename).toBe('Tax questions.md')
      expect(saved[0].text).toMatch(/^# Tax questions\n\nSession `agent:main:taxes` · 2 messages · /)
      expect(saved[0].text).toContain('## You')
      expect(bridge.calls.filter((c) => c.name === 'history').at(-1)!.params).toMatchObject({ sessionKey: 'agent:main:taxes', limit: 1000, offset: 0 })
      expect(await screen.findByText('Exported “Tax questions” (2 messages)')).toBeInTheDocument()
    } finally {
      spy.mockRestore()
    }
  })
})

describe('fork', () => {
  it('Fork opens a new session holding a copy of the conversation; the original stays as it was', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp({ seed })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const log = screen.getByRole('log')
    await waitFor(() => expect(within(log).getAllByText(/Question/).length).toBe(2))
    await pickAction(user, 'Main', 'Fork')
    await waitFor(() => expect(within(nav).getByTitle('Main (fork)')).toBeInTheDocument())
    // no name sent: the runtime (here the FakeBridge, as the runtime) names it, as it names every fork
    expect(bridge.calls.filter((c) => c.name === 'sessionsCreate').at(-1)!.params).toEqual({ parentSessionKey: 'agent:main:main', fork: true })
    expect(within(nav).getByTitle('Main (fork)').closest('li')).toHaveClass('selected')
    await waitFor(() => expect(within(screen.getByRole('log')).getAllByText(/Question/).length).toBe(2))
    expect(within(nav).getByTitle('Main')).toBeInTheDocument()
  })

  it('a second Fork of the same session is "(fork 2)", as a second Regenerate is', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({ seed })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    await waitFor(() => expect(within(screen.getByRole('log')).getAllByText(/Question/).length).toBe(2))
    await pickAction(user, 'Main', 'Fork')
    await waitFor(() => expect(within(nav).getByTitle('Main (fork)').closest('li')).toHaveClass('selected'))
    await pickAction(user, 'Main', 'Fork')
    await waitFor(() => expect(within(nav).getByTitle('Main (fork 2)').closest('li')).toHaveClass('selected'))
    expect(within(nav).getAllByTitle(/^Main \(fork/).map((e) => e.textContent).sort()).toEqual(['Main (fork 2)', 'Main (fork)'])
  })

  it('forking a session while it runs copies it through its last completed reply', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp({ seed, tickMs: 200 })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    await waitFor(() => expect(within(screen.getByRole('log')).getAllByText(/Question/).length).toBe(2))
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'a long one{Enter}')
    await waitFor(() => expect(within(nav).getByTitle('Main').closest('[data-state]')).toHaveAttribute('data-state', 'running'))
    await pickAction(user, 'Main', 'Fork')
    await waitFor(() => expect(within(nav).getByTitle('Main (fork)')).toBeInTheDocument())
    expect(bridge.calls.filter((c) => c.name === 'sessionsCreate').at(-1)!.params).toMatchObject({ parentSessionKey: 'agent:main:main', fork: true, forkFrom: 'last-completed' })
    // the question still being answered stayed behind
    await waitFor(() => expect(within(screen.getByRole('log')).getAllByText(/Question/).length).toBe(2))
    expect(within(screen.getByRole('log')).queryByText('a long one')).toBeNull()
  })
})

describe('pin and archive', () => {
  it('pins to the top, archives out of sight behind "Show archived", and back, through sessions.patch', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp({
      seed: [
        { key: 'agent:main:main', label: 'Main', messages: 1 },
        { key: 'agent:main:taxes', label: 'Tax questions' },
        { key: 'agent:main:trip', label: 'Trip plans' },
      ],
    })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const titles = () => within(nav).queryAllByRole('listitem').map((li) => li.querySelector('.session-title')?.textContent ?? '')
    expect(titles()).toEqual(['Main', 'Tax questions', 'Trip plans'])

    await pickAction(user, 'Trip plans', 'Pin')
    await waitFor(() => expect(titles()).toEqual(['Trip plans', 'Main', 'Tax questions']))
    expect(within(nav).getByRole('img', { name: 'Pinned' })).toBeInTheDocument()
    expect(bridge.calls.filter((c) => c.name === 'sessionsPatch').at(-1)!.params).toEqual({ key: 'agent:main:trip', pinned: true })

    // the main session cannot be archived: the runtime refuses it, so it is not offered
    await user.click(within(nav).getByRole('button', { name: 'Actions for Main' }))
    expect(screen.queryByRole('menuitem', { name: 'Archive' })).not.toBeInTheDocument()
    await user.keyboard('{Escape}')

    await pickAction(user, 'Trip plans', 'Archive')
    await waitFor(() => expect(titles()).toEqual(['Main', 'Tax questions']))
    expect(bridge.calls.filter((c) => c.name === 'sessionsPatch').at(-1)!.params).toEqual({ key: 'agent:main:trip', archived: true })
    // archiving unpinned it (one write, like the runtime)
    const listed = await bridge.sessionsList({ archived: true })
    expect(listed.ok && listed.data.sessions).toMatchObject([{ key: 'agent:main:trip', archived: true, pinned: false }])

    const toggle = within(nav).getByRole('button', { name: 'Show archived (1)' })
    expect(toggle).toHaveAttribute('aria-pressed', 'false')
    await user.click(toggle)
    expect(titles()).toEqual(['Main', 'Tax questions', 'Trip plans']) // archived ones listed last
    const trip = within(nav).getByText('Trip plans').closest('li')!
    expect(trip).toHaveAttribute('data-archived', 'true')
    expect(trip).toHaveTextContent('Archived')
    // an archived session cannot be pinned: only Unarchive is offered
    await user.click(within(nav).getByRole('button', { name: 'Actions for Trip plans' }))
    expect(screen.queryByRole('menuitem', { name: 'Pin' })).not.toBeInTheDocument()
    await user.click(screen.getByRole('menuitem', { name: 'Unarchive' }))
    await waitFor(() => expect(within(nav).getByText('Trip plans').closest('li')).not.toHaveAttribute('data-archived'))
    expect(within(nav).getByRole('button', { name: 'Hide archived' })).toHaveAttribute('aria-pressed', 'true')
    expect(titles()).toEqual(['Main', 'Tax questions', 'Trip plans']) // restored to its place: a patch is no activity
    await user.click(within(nav).getByRole('button', { name: 'Hide archived' }))
    expect(within(nav).queryByRole('button', { name: /archived/ })).not.toBeInTheDocument()
  })

  it('archiving the open session opens the next listed one; an archived session takes no messages', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge, stores } = await renderApp({ seed })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    await user.click(within(nav).getByText('Tax questions'))
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe('agent:main:taxes'))
    await pickAction(user, 'Tax questions', 'Archive')
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe('agent:main:main'))
    const sent = await bridge.send({ sessionKey: 'agent:main:taxes', message: 'still there?', idempotencyKey: 'x1' })
    expect(sent).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: 'Session "agent:main:taxes" is archived. Restore it before starting new work.' } })
  })
})

describe('keyboard and long names', () => {
  it('Escape in a session\'s actions menu closes it and puts focus back on its "…" button', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({ seed })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const more = within(nav).getByRole('button', { name: 'Actions for Tax questions' })
    await user.click(more)
    const menu = screen.getByRole('menu', { name: 'Actions for Tax questions' })
    expect(within(menu).getByRole('menuitem', { name: 'Rename' })).toHaveFocus()
    await user.keyboard('{ArrowDown}{Escape}')
    expect(screen.queryByRole('menu')).toBeNull()
    expect(more).toHaveFocus()
    expect(more).toHaveAttribute('aria-expanded', 'false')
    // and from the keyboard again: Enter opens it, Escape comes back
    await user.keyboard('{Enter}')
    expect(screen.getByRole('menu', { name: 'Actions for Tax questions' })).toBeInTheDocument()
    await user.keyboard('{Escape}')
    expect(more).toHaveFocus()
    // an action that keeps the row in place (Pin) also leaves focus on its "…" button
    await user.keyboard('{Enter}')
    await user.click(screen.getByRole('menuitem', { name: 'Pin' }))
    expect(screen.queryByRole('menu')).toBeNull()
    await waitFor(() => expect(within(nav).getByRole('button', { name: 'Actions for Tax questions' })).toHaveFocus())
  })

  it('Home and End reach the first and last action; Tab or Shift+Tab out of the menu closes it', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({ seed })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const more = within(nav).getByRole('button', { name: 'Actions for Tax questions' })
    await user.click(more)
    const items = within(screen.getByRole('menu')).getAllByRole('menuitem')
    await user.keyboard('{End}')
    expect(items[items.length - 1]).toHaveFocus()
    await user.keyboard('{Home}')
    expect(items[0]).toHaveFocus()
    // "…" is no Tab stop of its own (the list is one): Shift+Tab lands on the row, → opens its menu again
    await user.keyboard('{Shift>}{Tab}{/Shift}')
    expect(within(nav).getByText('Tax questions').closest('button')).toHaveFocus()
    expect(screen.queryByRole('menu')).toBeNull()
    expect(more).toHaveAttribute('aria-expanded', 'false')
    await user.keyboard('{ArrowRight}')
    expect(screen.getByRole('menu')).toBeInTheDocument()
    await user.keyboard('{End}{Tab}')
    expect(screen.queryByRole('menu')).toBeNull()
  })

  it('keyboard focus stays on the row after a rename (Enter or Escape) and on its "…" after a cancelled Delete or Reset', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({ seed })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    await pickAction(user, 'Tax questions', 'Rename')
    await user.keyboard('Taxes 2026{Enter}')
    await waitFor(() => expect(within(nav).getByText('Taxes 2026')).toBeInTheDocument())
    expect(document.activeElement).toBe(within(nav).getByText('Taxes 2026').closest('button'))
    await pickAction(user, 'Taxes 2026', 'Rename')
    await user.keyboard('never mind{Escape}')
    expect(within(nav).queryByRole('textbox', { name: 'Session name' })).toBeNull()
    expect(document.activeElement).toBe(within(nav).getByText('Taxes 2026').closest('button'))

    for (const [item, dialogName] of [['Delete', 'Delete session?'], ['Reset', 'Reset session?']]) {
      await pickAction(user, 'Taxes 2026', item)
      const dialog = screen.getByRole('alertdialog', { name: dialogName })
      expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus()
      await user.keyboard('{Enter}') // Cancel
      expect(screen.queryByRole('alertdialog')).toBeNull()
      expect(within(nav).getByRole('button', { name: 'Actions for Taxes 2026' })).toHaveFocus()
    }
  })

  it('archiving or deleting the focused row hands the focus to the row now in its place, not to the page', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({ seed: [...seed, { key: 'agent:main:trip', label: 'Trip', messages: 2 }] })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    const titles = () => within(nav).getAllByRole('listitem').map((li) => li.querySelector('.session-title')?.textContent)
    await waitFor(() => expect(titles()).toEqual(['Main', 'Tax questions', 'Trip']))
    const rowButton = (title: string) => within(nav).getByText(title).closest('button')
    await pickAction(user, 'Tax questions', 'Archive')
    await waitFor(() => expect(titles()).toEqual(['Main', 'Trip']))
    await waitFor(() => expect(document.activeElement).toBe(rowButton('Trip')))
    // the last row: the one before it takes the focus
    await pickAction(user, 'Trip', 'Delete')
    await user.click(within(screen.getByRole('alertdialog', { name: 'Delete session?' })).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(titles()).toEqual(['Main']))
    await waitFor(() => expect(document.activeElement).toBe(rowButton('Main')))
  })

  it('a session name the row cuts off has its full text as a tooltip', async () => {
    const long = 'A very long session name about quarterly tax planning for the household and the small business'
    await renderApp({ seed: [{ key: 'agent:main:main', label: long, messages: 1 }] })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    expect(within(nav).getByText(long).closest('.session-title')).toHaveAttribute('title', long)
  })
})

describe('session titles', () => {
  it('an unlabelled session is named after its first message at once, and still after a reload (derived title)', async () => {
    const user = userEvent.setup({ delay: null })
    const seedNoLabel = [{ key: 'agent:main:chat-1' }, { key: 'agent:main:old', messages: 2 }]
    const { bridge, unmount } = await renderApp({ seed: seedNoLabel })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    // a session with messages is listed under its first one; the empty one under its key
    expect(within(nav).getByText('Question 1: how does part 0 work?')).toBeInTheDocument()
    expect(within(nav).getByText('chat-1')).toBeInTheDocument()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Plan   the garden\nfor spring{Enter}')
    await waitFor(() => expect(within(nav).getByText('Plan the garden for spring')).toBeInTheDocument())
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Plan the garden for spring')
    expect(within(nav).queryByText('chat-1')).toBeNull()
    // a second message does not rename it
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'and the orchard{Enter}')
    await settle(50)
    expect(within(nav).getByText('Plan the garden for spring')).toBeInTheDocument()
    unmount()
    // a new window over the same sessions: the title comes from sessions.list
    await renderApp({}, bridge)
    const nav2 = screen.getByRole('navigation', { name: 'Sessions' })
    await waitFor(() => expect(within(nav2).getByText('Plan the garden for spring')).toBeInTheDocument())
    expect(bridge.calls.filter((c) => c.name === 'sessionsList').at(-1)?.params).toMatchObject({ includeDerivedTitles: true })
  })
})
