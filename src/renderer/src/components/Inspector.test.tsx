import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { EventLog } from '../state/event-log'
import { timelines } from '../state/run-timeline'
import { LONG, renderApp } from '../test-utils'
import { preloadInspector } from '../lazy-views'

// the Inspector is a lazily loaded chunk: load it first, as the idle warm-up does in the app (a view that
// suspends inside a click's act() would wait for a flush that never comes; lib/lazy-view.test.tsx
// covers the loading itself)
beforeAll(async () => {
  await preloadInspector()
})
beforeEach(() => localStorage.clear())
const NODE_FS: string = 'node:fs'

describe('inspector', () => {
  it('is toggled by the Inspector button and shows the run’s events with filters and raw JSON', async () => {
    const user = userEvent.setup({ delay: null })
    const { controller } = await renderApp()
    expect(screen.queryByRole('complementary', { name: 'Inspector' })).not.toBeInTheDocument()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'list files with a tool{Enter}')
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    expect(controller.log.list('agent:main:main').length).toBeGreaterThan(10)
    await user.click(screen.getByRole('button', { name: 'Inspector' }))
    const panel = await screen.findByRole('complementary', { name: 'Inspector' })
    const events = within(panel).getByRole('list', { name: 'Events' })
    await waitFor(() => expect(within(events).getAllByRole('listitem').length).toBeGreaterThan(5))
    expect(within(events).getAllByText('lifecycle').length).toBeGreaterThanOrEqual(2)
    expect(within(events).getAllByText('tool').length).toBeGreaterThanOrEqual(2)
    expect(within(panel).getByRole('list', { name: /Timeline of run/ })).toHaveTextContent(/Tool exec/)

    // filter: hide assistant deltas
    const count = within(events).getAllByRole('listitem').length
    await user.click(within(panel).getByRole('button', { name: 'assistant' }))
    await waitFor(() => expect(within(events).getAllByRole('listitem').length).toBeLessThan(count))
    expect(within(events).queryByText('assistant')).not.toBeInTheDocument()

    // raw JSON
    const row = within(events).getAllByRole('button', { name: /lifecycle/ })[0]
    await user.click(row)
    expect(within(events).getByText(/"stream": "lifecycle"/)).toBeInTheDocument()
    expect(within(events).getByRole('button', { name: 'Copy JSON' })).toBeInTheDocument()

    await user.click(within(panel).getByRole('button', { name: 'Close inspector' }))
    expect(screen.queryByRole('complementary', { name: 'Inspector' })).not.toBeInTheDocument()
  })

  it('a run picked in one session does not empty the list of another (its select reads "All runs")', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({ seed: [{ key: 'agent:main:main', label: 'Main' }, { key: 'agent:main:other', label: 'Other' }] })
    const box = () => screen.getByRole('textbox', { name: 'Message' })
    await user.type(box(), 'hello there{Enter}')
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    await user.click(screen.getByRole('button', { name: 'Inspector' }))
    const panel = await screen.findByRole('complementary', { name: 'Inspector' })
    const select = within(panel).getByRole<HTMLSelectElement>('combobox', { name: 'Filter by run' })
    await user.selectOptions(select, select.options[1].value)
    expect(select.value).not.toBe('')
    await user.click(within(screen.getByRole('navigation', { name: 'Sessions' })).getByText('Other'))
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Message' })).toHaveAttribute('placeholder', 'Message Loopdesk…'))
    await user.type(box(), 'and here{Enter}')
    await waitFor(() => expect(within(screen.getByRole('log')).getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    const events = within(panel).getByRole('list', { name: 'Events' })
    await waitFor(() => expect(within(events).getAllByRole('listitem').length).toBeGreaterThan(2))
    expect(within(panel).queryByText('No events match the filters.')).toBeNull()
    expect(select.value).toBe('')
  })

  it('"Errors only" shows the failures of every stream — a failed run is a lifecycle event, not an "error" one', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'this will error{Enter}')
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Error/), LONG)
    await user.click(screen.getByRole('button', { name: 'Inspector' }))
    const panel = await screen.findByRole('complementary', { name: 'Inspector' })
    const events = within(panel).getByRole('list', { name: 'Events' })
    await waitFor(() => expect(within(events).getAllByRole('listitem').length).toBeGreaterThan(2))
    const all = within(events).getAllByRole('listitem').length
    const toggle = within(panel).getByRole('button', { name: 'Errors only' })
    await user.click(toggle)
    expect(toggle).toHaveAttribute('aria-pressed', 'true')
    await waitFor(() => expect(within(events).getAllByRole('listitem').length).toBeLessThan(all))
    const rows = within(events).getAllByRole('listitem')
    expect(rows.map((r) => r.textContent)).toEqual(expect.arrayContaining([expect.stringMatching(/lifecycle/), expect.stringMatching(/chat/)]))
    for (const r of rows) expect(r.querySelector('.ev-row')).toHaveClass('ev-error')
    expect(within(panel).getByRole('button', { name: 'lifecycle' })).toBeDisabled()
    await user.click(toggle)
    await waitFor(() => expect(within(events).getAllByRole('listitem')).toHaveLength(all))
  })
})

describe('run timeline', () => {
  it('lists the steps in the order they happened: a tool called before any text comes before the first delta', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({
      tickMs: 5,
      scripts: [
        {
          steps: [
            { kind: 'tool', name: 'exec', args: { command: 'ls' }, result: { content: [{ type: 'text', text: 'a.txt' }] }, durationMs: 50 },
            { kind: 'text', text: 'There is one file.' },
          ],
        },
      ],
    })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'go{Enter}')
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    await user.click(screen.getByRole('button', { name: 'Inspector' }))
    const steps = within(screen.getByRole('list', { name: /Timeline of run/ }))
      .getAllByRole('listitem')
      .map((li) => li.textContent!.replace(/\s*\(.*|\+.*$/, ''))
    expect(steps).toEqual(['Accepted', 'Started', 'Tool exec', 'First delta', 'Ended'].filter((s) => s !== 'Accepted' || steps[0] === 'Accepted'))
  })

  it('"Errors only" narrows the timeline to the failed calls too (the others counted); off, its chip is not struck through', async () => {
    const user = userEvent.setup({ delay: null })
    const ok = (path: string) => ({ kind: 'tool' as const, name: 'read', args: { path }, result: { content: [{ type: 'text', text: 'x' }] }, durationMs: 20 })
    await renderApp({
      tickMs: 5,
      scripts: [
        {
          steps: [
            ok('a.txt'),
            { kind: 'tool', name: 'exec', args: { command: 'false' }, result: { content: [{ type: 'text', text: 'exit 1' }] }, isError: true, durationMs: 20 },
            ok('b.txt'),
            { kind: 'text', text: 'One call failed.' },
          ],
        },
      ],
    })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'go{Enter}')
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    await user.click(screen.getByRole('button', { name: 'Inspector' }))
    const panel = await screen.findByRole('complementary', { name: 'Inspector' })
    const toggle = within(panel).getByRole('button', { name: 'Errors only' })
    // off it reads as a filter not in use, not as "errors hidden" (the stream chips' struck-through off look)
    const sheet = document.head.appendChild(document.createElement('style'))
    // the tests load no CSS (and the renderer's types know no node:fs): read the app's sheet from the checkout
    const fs = (await import(/* @vite-ignore */ NODE_FS)) as { readFileSync: (path: string, enc: 'utf8') => string }
    sheet.textContent = fs.readFileSync('src/renderer/src/styles.css', 'utf8')
    expect(getComputedStyle(within(panel).getByRole('button', { name: 'tool' })).textDecoration).toBe('none') // shown stream
    expect(getComputedStyle(toggle).textDecoration).toBe('none')
    await user.click(within(panel).getByRole('button', { name: 'tool' }))
    expect(getComputedStyle(within(panel).getByRole('button', { name: 'tool' })).textDecoration).toMatch(/line-through/) // hidden stream
    await user.click(within(panel).getByRole('button', { name: 'tool' }))
    sheet.remove()
    const tools = () =>
      within(screen.getByRole('list', { name: /Timeline of run/ }))
        .getAllByRole('listitem')
        .map((li) => li.textContent!)
        .filter((t) => /^Tool|hidden/.test(t))
    expect(tools().map((t) => t.replace(/\s*\(.*/, ''))).toEqual(['Tool read', 'Tool exec', 'Tool read'])
    await user.click(toggle)
    await waitFor(() => expect(tools().map((t) => t.replace(/\s*\(.*/, ''))).toEqual(['Tool exec', '2 tool calls without errors hidden']))
    await user.click(toggle)
    await waitFor(() => expect(tools()).toHaveLength(3))
  })
})

describe('inspector after a reload', () => {
  it('shows the agent events the runtime still holds for the session, with the run timeline', async () => {
    const user = userEvent.setup({ delay: null })
    const first = await renderApp()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'list files with a tool{Enter}')
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    first.unmount()
    // a new window over the same runtime: nothing seen live, the runtime's recent events fill the log
    const { controller } = await renderApp({}, first.bridge)
    await waitFor(() => expect(controller.log.list('agent:main:main').length).toBeGreaterThan(5))
    await user.click(screen.getByRole('button', { name: 'Inspector' }))
    const panel = await screen.findByRole('complementary', { name: 'Inspector' })
    const events = within(panel).getByRole('list', { name: 'Events' })
    await waitFor(() => expect(within(events).getAllByText('lifecycle').length).toBeGreaterThanOrEqual(2))
    expect(within(panel).getByRole('list', { name: /Timeline of run/ })).toHaveTextContent(/Tool exec/)
  })
})

describe('event log', () => {
  it('is a bounded ring per session', () => {
    const log = new EventLog(3)
    for (let i = 1; i <= 5; i++)
      log.record('s', { event: 'agent', payload: { runId: 'r', seq: i, stream: 'assistant', ts: i, data: { text: '', delta: '' }, sessionKey: 's' } })
    expect(log.list('s').map((e) => (e.event.payload as { seq: number }).seq)).toEqual([3, 4, 5])
    expect(log.size('other')).toBe(0)
  })

  it('derives accepted → first delta → tools → end', () => {
    const log = new EventLog()
    const ev = (seq: number, stream: string, data: Record<string, unknown>, ts: number) =>
      log.record('s', { event: 'agent', payload: { runId: 'r', seq, stream: stream as 'tool', ts, data, sessionKey: 's' } })
    ev(1, 'lifecycle', { phase: 'start', startedAt: 110 }, 110)
    ev(2, 'assistant', { text: 'a', delta: 'a' }, 150)
    ev(3, 'tool', { phase: 'start', name: 'exec', toolCallId: 'c' }, 200)
    ev(4, 'tool', { phase: 'result', name: 'exec', toolCallId: 'c', isError: false }, 260)
    ev(5, 'lifecycle', { phase: 'end', endedAt: 300 }, 300)
    expect(timelines(log.list('s'), { r: 100 })).toEqual([
      { runId: 'r', acceptedAt: 100, startedAt: 110, firstDeltaAt: 150, tools: [{ name: 'exec', toolCallId: 'c', startedAt: 200, endedAt: 260, isError: false }], endedAt: 300, outcome: 'done' },
    ])
  })
})
