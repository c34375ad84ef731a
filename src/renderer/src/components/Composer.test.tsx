import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { LONG, renderApp, settle } from '../test-utils'
import { preloadSessionMenu } from '../lazy-views'

// a row's "…" menu is a chunk of its own: loaded first, as the idle warm-up does
beforeAll(async () => {
  await preloadSessionMenu()
})

beforeEach(() => localStorage.clear())

const slow = { kind: 'text' as const, text: 'word '.repeat(400) }

describe('composer', () => {
  it('Enter sends, Shift+Enter inserts a newline', async () => {
    const { bridge } = await renderApp()
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'first line{Shift>}{Enter}{/Shift}second line')
    expect(box).toHaveValue('first line\nsecond line')
    expect(bridge.calls.filter((c) => c.name === 'send')).toHaveLength(0)
    await user.keyboard('{Enter}')
    await waitFor(() => expect(bridge.calls.filter((c) => c.name === 'send')).toHaveLength(1))
    const params = bridge.calls.find((c) => c.name === 'send')!.params as { message: string; idempotencyKey: string; queueMode?: string }
    expect(params.message).toBe('first line\nsecond line')
    expect(params.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/)
    expect(params.queueMode).toBeUndefined()
    expect(box).toHaveValue('')
    // the message shows at once, then the reply completes
    expect(within(screen.getByRole('log', { name: 'Conversation' })).getByText(/first line/, { selector: '.user-text' })).toBeInTheDocument()
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
  })

  it('↑ at the start recalls earlier messages, ↓ returns to the draft', async () => {
    await renderApp()
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'one{Enter}')
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    await user.type(box, 'two{Enter}')
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    await user.keyboard('{ArrowUp}')
    expect(box).toHaveValue('two')
    ;(box as HTMLTextAreaElement).setSelectionRange(0, 0)
    await user.keyboard('{ArrowUp}')
    expect(box).toHaveValue('one')
    ;(box as HTMLTextAreaElement).setSelectionRange(3, 3)
    await user.keyboard('{ArrowDown}')
    expect(box).toHaveValue('two')
    ;(box as HTMLTextAreaElement).setSelectionRange(3, 3)
    await user.keyboard('{ArrowDown}')
    expect(box).toHaveValue('')
  })

  it('↑ without any message sent from this window recalls the session’s own earlier messages', async () => {
    await renderApp({ seed: [{ key: 'agent:main:main', label: 'Main', messages: 4 }] })
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await waitFor(() => expect(within(screen.getByRole('log', { name: 'Conversation' })).getAllByText(/Question 2/).length).toBeGreaterThan(0))
    box.focus()
    await user.keyboard('{ArrowUp}')
    expect(box).toHaveValue('Question 2: how does part 2 work?')
    ;(box as HTMLTextAreaElement).setSelectionRange(0, 0)
    await user.keyboard('{ArrowUp}')
    expect(box).toHaveValue('Question 1: how does part 0 work?')
    ;(box as HTMLTextAreaElement).setSelectionRange(99, 99)
    await user.keyboard('{ArrowDown}{ArrowDown}')
    expect(box).toHaveValue('')
  })

  it('keeps a draft per session across a reload (localStorage)', async () => {
    const first = await renderApp({ seed: [{ key: 'agent:main:a', label: 'A' }, { key: 'agent:main:b', label: 'B' }] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'half-written thought')
    await settle(200)
    first.unmount()
    await renderApp({ seed: [{ key: 'agent:main:a', label: 'A' }, { key: 'agent:main:b', label: 'B' }] })
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('half-written thought')
  })

  it('Stop shows Stopping… until the run ends, then Stopped with the partial reply kept', async () => {
    // the fake notices the abort only after its 'wait' step, which leaves "Stopping…" visible
    const { bridge } = await renderApp({ scripts: [{ steps: [{ kind: 'text', text: 'word word word' }, { kind: 'wait', ms: 2500 }, slow] }] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'go{Enter}')
    await waitFor(() => expect(screen.getByRole('button', { name: /^Stop$/ })).toBeInTheDocument())
    await waitFor(() => expect(screen.getByText(/word word/)).toBeInTheDocument())
    await user.click(screen.getByRole('button', { name: /^Stop$/ }))
    // Stopping… shows right away (the fake only notices the abort on its next tick)
    expect(screen.getByRole('button', { name: /Stopping…/ })).toBeDisabled()
    expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Stopping…/)
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Stopped/), LONG)
    // (the sidebar's preview shows the partial reply too)
    expect(within(screen.getByRole('log', { name: 'Conversation' })).getByText(/word word/)).toBeInTheDocument()
    // said once, by the run's status (with what the stopped run used), not again on the message
    expect(screen.queryByText('Stopped', { selector: '.tag' })).toBeNull()
    expect(within(screen.getByRole('log')).getAllByText(/Stopped/)).toHaveLength(1)
    expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Stopped · [\d.]+ s · 404 tokens/)
    // and the header's total counts them
    expect(screen.getByRole('banner')).toHaveTextContent('404 tokens')
    expect(screen.getByRole('button', { name: 'Send' })).toBeInTheDocument()
    expect(bridge.calls.find((c) => c.name === 'abort')?.params).toMatchObject({ sessionKey: 'agent:main:main' })
  })

  it('Send, Queue, Steer and Stop leave the keyboard focus in the message box, not on the page', async () => {
    const { bridge } = await renderApp({ tickMs: 5, scripts: [{ steps: [slow] }, { steps: [slow] }] })
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'go')
    await user.click(screen.getByRole('button', { name: 'Send' }))
    await waitFor(() => expect(screen.getByRole('button', { name: /^Stop$/ })).toBeInTheDocument())
    expect(document.activeElement).toBe(box)
    await user.type(box, 'later please')
    await user.click(screen.getByRole('button', { name: 'Queue' }))
    expect(screen.getByRole('button', { name: 'Queue' })).toBeDisabled()
    expect(document.activeElement).toBe(box)
    await user.type(box, 'shorter')
    await user.click(screen.getByRole('button', { name: 'Steer' }))
    expect(document.activeElement).toBe(box)
    await user.click(screen.getByRole('button', { name: /^Stop$/ }))
    await waitFor(() => expect(screen.getAllByRole('status').filter((el) => el.closest('[role=log]')).at(-1)).toHaveTextContent(/^Stopped/), LONG)
    expect(screen.getByRole('button', { name: 'Send' })).toBeInTheDocument()
    expect(document.activeElement).toBe(box)
    expect(bridge.calls.filter((c) => c.name === 'send').map((c) => (c.params as { queueMode?: string }).queueMode)).toEqual([undefined, 'followup', 'steer'])
  })

  it('a Stop that cannot reach the runtime does not leave the button stuck on Stopping…', async () => {
    const { bridge } = await renderApp({ scripts: [{ steps: [{ kind: 'text', text: 'word word word' }, { kind: 'wait', ms: 3000 }, slow] }] })
    const user = userEvent.setup()
    const abort = bridge.abort.bind(bridge)
    bridge.abort = async () => ({ ok: false, error: { code: 'UNAVAILABLE', message: 'the gateway is unreachable' } })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'go{Enter}')
    await waitFor(() => expect(screen.getByText(/word word/)).toBeInTheDocument())
    await user.click(screen.getByRole('button', { name: /^Stop$/ }))
    expect(await screen.findByText(/Could not stop the run: the gateway is unreachable/)).toBeInTheDocument()
    // Stop is offered again (the run goes on), and a second try that works stops it
    await waitFor(() => expect(screen.getByRole('button', { name: /^Stop$/ })).toBeEnabled())
    expect(screen.getAllByRole('status').filter((el) => el.closest('[role=log]')).at(-1)).toHaveTextContent(/^Running…/)
    bridge.abort = abort
    await user.click(screen.getByRole('button', { name: /^Stop$/ }))
    await waitFor(() => expect(screen.getAllByRole('status').filter((el) => el.closest('[role=log]')).at(-1)).toHaveTextContent(/^Stopped/), LONG)
  })

  it('a reply that only waits for a slot offers Queue, not Steer (nothing to steer into yet), until it starts', async () => {
    const { bridge } = await renderApp({ seed: [{ key: 'agent:main:main', label: 'Main', messages: 2 }] })
    let seq = 0
    const ev = (stream: 'lane' | 'lifecycle', data: Record<string, unknown>) => ({
      event: 'agent' as const,
      payload: { runId: 'rw', seq: ++seq, stream, ts: Date.now(), data, sessionKey: 'agent:main:main' },
    })
    act(() => bridge.inject(ev('lane', { phase: 'waiting', lane: 'global', running: 4, limit: 4, ahead: 0, message: 'waiting question' })))
    await waitFor(() => expect(screen.getByRole('button', { name: 'Queue' })).toBeInTheDocument())
    expect(screen.queryByRole('button', { name: 'Steer' })).toBeNull()
    expect(screen.getByRole('button', { name: /Stop/ })).toBeInTheDocument()
    expect(screen.getByText(/the reply has not started yet, so there is nothing to steer/)).toBeInTheDocument()
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveAttribute('placeholder', expect.stringMatching(/^Queue a follow-up/))
    act(() => bridge.inject(ev('lifecycle', { phase: 'start', startedAt: Date.now() })))
    await waitFor(() => expect(screen.getByRole('button', { name: 'Steer' })).toBeInTheDocument())
    expect(screen.getByText(/Steer injects into the running reply/)).toBeInTheDocument()
    // a second message waiting behind that running reply: the running one can still be steered
    act(() => bridge.inject({ event: 'agent', payload: { runId: 'rw2', seq: 1, stream: 'lane', ts: Date.now(), data: { phase: 'waiting', lane: 'session', ahead: 0, message: 'next' }, sessionKey: 'agent:main:main' } }))
    await waitFor(() => expect(within(screen.getByRole('log')).getByText('next')).toBeInTheDocument())
    expect(screen.getByRole('button', { name: 'Steer' })).toBeInTheDocument()
    act(() => bridge.inject(ev('lifecycle', { phase: 'end', endedAt: Date.now() })))
  })

  it('while running: Queue adds a visible, removable follow-up; Steer injects into the run', async () => {
    const { bridge } = await renderApp({ tickMs: 5, scripts: [{ steps: [slow] }] })
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'go{Enter}')
    await waitFor(() => expect(screen.getByRole('button', { name: 'Queue' })).toBeInTheDocument())
    await user.type(box, 'later please')
    await user.click(screen.getByRole('button', { name: 'Queue' }))
    const queue = await screen.findByRole('region', { name: 'Queued messages' })
    expect(within(queue).getByText('later please')).toBeInTheDocument()
    expect(within(queue).getByText('Queued')).toBeInTheDocument()
    await user.click(within(queue).getByRole('button', { name: /Remove queued message/ }))
    await waitFor(() => expect(within(queue).getByText('Removed')).toBeInTheDocument())

    await user.type(box, 'use bullet points')
    await user.click(screen.getByRole('button', { name: 'Steer' }))
    const sends = bridge.calls.filter((c) => c.name === 'send').map((c) => c.params as { queueMode?: string })
    expect(sends.map((s) => s.queueMode)).toEqual([undefined, 'followup', 'steer'])
    await waitFor(() => expect(within(screen.getByRole('log')).getByText('use bullet points')).toBeInTheDocument())
    await waitFor(() => expect(within(screen.getByRole('log')).getByText(/Understood — use bullet points/)).toBeInTheDocument(), LONG)
    await act(() => bridge.abort({ sessionKey: 'agent:main:main' }))
  })

  it('Stop holds the queued follow-up: it stays listed, paused, until the user sends (or removes) it', async () => {
    const { bridge } = await renderApp({
      scripts: [{ steps: [{ kind: 'text', text: 'word word word' }, { kind: 'wait', ms: 600 }, slow] }, { steps: [{ kind: 'text', text: 'the follow-up answer' }] }],
    })
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'go{Enter}')
    await waitFor(() => expect(screen.getByText(/word word/)).toBeInTheDocument())
    await user.type(box, 'and then this{Enter}')
    const queue = await screen.findByRole('region', { name: 'Queued messages' })
    await waitFor(() => expect(within(queue).getByText('Queued')).toBeInTheDocument())
    await user.click(screen.getByRole('button', { name: /^Stop$/ }))
    await waitFor(() => expect(screen.getAllByRole('status').filter((el) => el.closest('[role=log]')).at(-1)).toHaveTextContent(/^Stopped/), LONG)
    await settle(300)
    // not started: still listed, paused, and no second run
    expect(within(queue).getByText('Paused')).toBeInTheDocument()
    expect(within(queue).getByText('and then this')).toBeInTheDocument()
    expect(within(screen.getByRole('log')).queryByText('and then this')).toBeNull()
    expect(bridge.calls.map((c) => c.name)).toContain('queueHold')
    await user.click(within(queue).getByRole('button', { name: 'Send queued message: and then this' }))
    await waitFor(() => expect(within(queue).getByText('Started as the next run')).toBeInTheDocument(), LONG)
    await waitFor(() => expect(within(screen.getByRole('log')).getByText('the follow-up answer')).toBeInTheDocument(), LONG)
  })

  it('queued follow-ups move up and down (buttons, by keyboard too); the runtime gets the new order', async () => {
    const { bridge } = await renderApp({ tickMs: 5, scripts: [{ steps: [slow] }] })
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'go{Enter}')
    await waitFor(() => expect(screen.getByRole('button', { name: 'Queue' })).toBeInTheDocument())
    for (const text of ['alpha', 'beta', 'gamma']) await user.type(box, `${text}{Enter}`)
    const queue = await screen.findByRole('region', { name: 'Queued messages' })
    const order = () => within(queue).getAllByText(/^(alpha|beta|gamma)$/).map((el) => el.textContent)
    await waitFor(() => expect(order()).toEqual(['alpha', 'beta', 'gamma']))
    // nothing above the first, nothing below the last
    expect(within(queue).getByRole('button', { name: 'Move up: alpha' })).toBeDisabled()
    expect(within(queue).getByRole('button', { name: 'Move down: gamma' })).toBeDisabled()

    await user.click(within(queue).getByRole('button', { name: 'Move up: gamma' }))
    await waitFor(() => expect(order()).toEqual(['alpha', 'gamma', 'beta']))
    const reorders = () => bridge.calls.filter((c) => c.name === 'queueReorder').map((c) => c.params as { ids: string[] })
    expect(reorders()).toHaveLength(1)
    // the keyboard stays on the moved message: Enter moves it again, to the top, where focus goes to its Move down
    expect(within(queue).getByRole('button', { name: 'Move up: gamma' })).toHaveFocus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(order()).toEqual(['gamma', 'alpha', 'beta']))
    await waitFor(() => expect(within(queue).getByRole('button', { name: 'Move down: gamma' })).toHaveFocus())
    expect(reorders()).toHaveLength(2)
    const ids = reorders()[1].ids
    const listed = await bridge.queueList({ sessionKey: 'agent:main:main' })
    const texts = listed.ok ? listed.data.items.filter((q) => q.status === 'queued') : []
    expect(ids).toEqual(texts.map((q) => q.id))
    expect(texts.map((q) => q.text)).toEqual(['gamma', 'alpha', 'beta'])
    await act(() => bridge.abort({ sessionKey: 'agent:main:main' }))
  })

  it('Escape stops the streaming reply, from the box or from elsewhere, but not while a menu is open', async () => {
    const { bridge } = await renderApp({ scripts: [{ steps: [{ kind: 'text', text: 'word word word' }, { kind: 'wait', ms: 2500 }, slow] }, { steps: [{ kind: 'text', text: 'word word word' }, { kind: 'wait', ms: 2500 }, slow] }] })
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    const aborts = () => bridge.calls.filter((c) => c.name === 'abort').length
    await user.type(box, 'go{Enter}')
    await waitFor(() => expect(screen.getByText(/word word/)).toBeInTheDocument())
    // a menu open elsewhere takes Escape for itself
    await user.click(screen.getByRole('button', { name: 'Actions for Main' }))
    await user.keyboard('{Escape}')
    expect(screen.queryByRole('menu')).toBeNull()
    expect(aborts()).toBe(0)
    await user.click(box)
    await user.keyboard('{Escape}')
    await waitFor(() => expect(aborts()).toBe(1))
    await waitFor(() => expect(screen.getAllByRole('status').filter((el) => el.closest('[role=log]')).at(-1)).toHaveTextContent(/^Stopped/), LONG)
    // from outside any field (focus on the page)
    await user.type(box, 'again{Enter}')
    await waitFor(() => expect(screen.getByRole('button', { name: /^Stop$/ })).toBeInTheDocument())
    ;(document.activeElement as HTMLElement | null)?.blur()
    await user.keyboard('{Escape}')
    await waitFor(() => expect(aborts()).toBe(2))
  })

  it('Enter while running queues; the queued message runs next and shows what happened', async () => {
    await renderApp({ tickMs: 40, scripts: [{ steps: [{ kind: 'text', text: 'first answer '.repeat(30) }] }] })
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'go{Enter}')
    await waitFor(() => expect(screen.getByRole('button', { name: 'Queue' })).toBeInTheDocument())
    await user.type(box, 'and then this{Enter}')
    const queue = await screen.findByRole('region', { name: 'Queued messages' })
    await waitFor(() => expect(within(queue).getByText('Started as the next run')).toBeInTheDocument(), { timeout: 5000 })
    await waitFor(() => expect(within(screen.getByRole('log')).getByText('and then this')).toBeInTheDocument(), LONG)
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    expect(within(screen.getByRole('log')).getAllByRole('status').filter((s) => /^Done/.test(s.textContent ?? ''))).toHaveLength(2)
  })

  it('cleared outcomes stay cleared: through the next queued message and after a reload', async () => {
    const scripts = [{ steps: [{ kind: 'text' as const, text: 'first answer '.repeat(30) }] }, { steps: [{ kind: 'text' as const, text: 'second answer '.repeat(30) }] }]
    const first = await renderApp({ tickMs: 40, scripts })
    const user = userEvent.setup()
    const box = () => screen.getByRole('textbox', { name: 'Message' })
    await user.type(box(), 'go{Enter}')
    await waitFor(() => expect(screen.getByRole('button', { name: 'Queue' })).toBeInTheDocument())
    await user.type(box(), 'and then this{Enter}')
    const queue = () => screen.getByRole('region', { name: 'Queued messages' })
    await waitFor(() => expect(within(queue()).getByText('Started as the next run')).toBeInTheDocument(), { timeout: 5000 })
    await user.click(within(queue()).getByRole('button', { name: 'Clear finished' }))
    expect(screen.queryByText('Started as the next run')).toBeNull()
    // the runtime sends its whole list (finished items included) with the next queue change
    await user.type(box(), 'one more{Enter}')
    await waitFor(() => expect(within(queue()).getByText('one more')).toBeInTheDocument(), LONG)
    expect(within(queue()).queryByText('and then this')).toBeNull()
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    first.unmount()
    // a reload: the runtime still lists it, the window does not
    await renderApp({}, first.bridge)
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Message' })).toBeInTheDocument())
    await waitFor(() => expect(within(queue()).getByText('one more')).toBeInTheDocument())
    expect(within(queue()).queryByText('and then this')).toBeNull()
  }, 20_000)
})

describe('slash commands', () => {
  it('a "/" offers the chat commands: ↓ and Tab complete one, Enter sends a command typed out, Esc closes', async () => {
    const { bridge } = await renderApp()
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    expect(box).not.toHaveAttribute('aria-expanded')
    await user.type(box, '/')
    const menu = screen.getByRole('listbox', { name: 'Commands' })
    expect(within(menu).getAllByRole('option').map((o) => o.textContent)).toEqual([
      expect.stringMatching(/^\/new/),
      expect.stringMatching(/^\/reset/),
      expect.stringMatching(/^\/stop/),
      expect.stringMatching(/^\/model/),
    ])
    // a textarea (role textbox) takes no aria-expanded; the list is tied to it by aria-controls
    expect(box).not.toHaveAttribute('aria-expanded')
    expect(box).toHaveAttribute('aria-controls', menu.id)
    expect(box).toHaveAttribute('aria-activedescendant', 'slash-new')
    await user.keyboard('{ArrowDown}')
    expect(box).toHaveAttribute('aria-activedescendant', 'slash-reset')
    expect(within(menu).getByRole('option', { selected: true })).toHaveTextContent(/^\/reset/)
    await user.keyboard('{Tab}')
    expect(box).toHaveValue('/reset ')
    expect(screen.queryByRole('listbox')).toBeNull()
    expect(box).toHaveFocus()

    // narrowing as one types; Enter completes a partial name, then sends the whole one
    await user.clear(box)
    await user.type(box, '/st')
    expect(within(screen.getByRole('listbox')).getAllByRole('option')).toHaveLength(1)
    await user.keyboard('{Enter}')
    expect(box).toHaveValue('/stop')
    expect(bridge.calls.filter((c) => c.name === 'send')).toHaveLength(0)
    await user.keyboard('{Enter}')
    await waitFor(() => expect(bridge.calls.filter((c) => c.name === 'send').at(-1)?.params).toMatchObject({ message: '/stop' }))

    // Esc closes it; a click picks one; a slash inside a sentence is just text
    await user.type(box, '/n')
    await user.keyboard('{Escape}')
    expect(screen.queryByRole('listbox')).toBeNull()
    await user.clear(box)
    await user.type(box, '/')
    await user.click(within(screen.getByRole('listbox')).getByText('/new'))
    expect(box).toHaveValue('/new ')
    await user.clear(box)
    await user.type(box, 'and/or')
    expect(screen.queryByRole('listbox')).toBeNull()
  })
})

describe('read-only', () => {
  it('the switch makes the session read-only (sessions.patch), says so under the box and in the sidebar, and allows changes again', async () => {
    const { bridge } = await renderApp()
    const user = userEvent.setup()
    const lock = screen.getByRole('switch', { name: /read-only/i })
    expect(lock).toHaveAttribute('aria-checked', 'false')
    // off, it shows the mode in force — not "Read-only", which read as a status while the agent wrote files
    expect(lock).toHaveTextContent(/^Changes allowed$/)
    // Label in Name (WCAG 2.5.3): the name starts with the text shown, and says which switch it is
    expect(lock).toHaveAccessibleName('Changes allowed (read-only off)')
    expect(lock.querySelector('svg')).toBeNull()
    expect(screen.queryByText(/Read-only: no file changes or commands/)).toBeNull()
    await user.click(lock)
    await waitFor(() => expect(lock).toHaveAttribute('aria-checked', 'true'))
    expect(lock).toHaveTextContent(/^Read-only$/)
    expect(lock).toHaveAccessibleName('Read-only')
    expect(lock.querySelector('svg')).not.toBeNull() // the lock only when read-only
    const patch = bridge.calls.filter((c) => c.name === 'sessionsPatch').at(-1)!.params as { key: string; permissionMode: unknown }
    expect(patch.permissionMode).toBe('read-only')
    expect(screen.getByText(/Read-only: no file changes or commands/)).toBeInTheDocument()
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    expect(within(nav).getByRole('img', { name: 'Read-only' })).toBeInTheDocument()
    expect(lock).toHaveAttribute('title', expect.stringMatching(/^Read-only: the agent can read and search files but not change them/))
    // the row the runtime lists carries the mode
    const listed = await bridge.sessionsList({})
    expect(listed.ok && listed.data.sessions.find((r) => r.key === patch.key)?.permissionMode).toBe('read-only')

    await user.click(lock)
    await waitFor(() => expect(lock).toHaveAttribute('aria-checked', 'false'))
    expect(lock).toHaveTextContent(/^Changes allowed$/)
    expect(lock).toHaveAccessibleName('Changes allowed (read-only off)')
    expect(bridge.calls.filter((c) => c.name === 'sessionsPatch').at(-1)!.params).toMatchObject({ key: patch.key, permissionMode: null })
    expect(screen.queryByText(/Read-only: no file changes or commands/)).toBeNull()
    expect(within(nav).queryByRole('img', { name: 'Read-only' })).toBeNull()
  })
})
