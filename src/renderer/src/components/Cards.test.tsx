import { act, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { AppContext } from '../app-context'
import { FakeBridge } from '../bridge/fake-bridge'
import { Controller } from '../state/controller'
import { createAppStores } from '../state/stores'
import type { ApprovalItem, ToolItem } from '../state/types'
import { LONG, renderApp } from '../test-utils'
import { ApprovalCard } from './ApprovalCard'
import { isModelSetupError } from './Messages'
import { ToolCard } from './ToolCard'
import { preloadSettings } from '../lazy-views'

// Settings is a lazily loaded chunk: load it first, as the idle warm-up does in the app (a view that
// suspends inside a click's act() would wait for a flush that never comes; lib/lazy-view.test.tsx
// covers the loading itself)
beforeAll(async () => {
  await preloadSettings()
})
beforeEach(() => localStorage.clear())

function withApp(ui: React.ReactElement, bridge = new FakeBridge()) {
  const stores = createAppStores()
  // connected, as a window showing cards is (the controller is not started here; stores begin 'connecting')
  stores.settings.setState({ connection: 'ready' })
  const controller = new Controller(bridge, stores)
  const wrapper = ({ children }: { children: React.ReactNode }) => (
    <AppContext.Provider value={{ controller, stores }}>{children}</AppContext.Provider>
  )
  return { bridge, controller, ...render(ui, { wrapper }) }
}

const tool = (over: Partial<ToolItem> = {}): ToolItem => ({
  kind: 'tool',
  key: 'tool:c1',
  runId: 'r1',
  ts: 1,
  toolCallId: 'c1',
  name: 'exec',
  args: { command: 'ls -la', cwd: '/work' },
  status: 'running',
  startedAt: 1000,
  ...over,
})

describe('tool card', () => {
  it('shows name, argument summary and live status; accessible as "Tool <name>"', () => {
    const { rerender } = withApp(<ToolCard item={tool()} />)
    const card = screen.getByRole('group', { name: 'Tool exec' })
    expect(card).toHaveTextContent('exec')
    expect(card).toHaveTextContent('ls -la')
    expect(card).toHaveTextContent('Running…')
    rerender(<ToolCard item={tool({ status: 'done', endedAt: 3500, result: { content: [{ type: 'text', text: 'README.md' }] } })} />)
    expect(card).toHaveTextContent('Done')
    expect(card).toHaveTextContent('2.5 s')
    rerender(<ToolCard item={tool({ status: 'failed', endedAt: 1200, result: 'permission denied' })} />)
    expect(card).toHaveTextContent('Failed')
    expect(card).toHaveTextContent('200 ms')
  })

  it('a command approved after a wait shows its own run time, the wait apart', () => {
    const approval = { decision: 'allow-once' as const, resolvedBy: 'user' as const, askedAt: 1000, resolvedAt: 31_000 }
    withApp(<ToolCard item={tool({ status: 'done', endedAt: 31_100, approval, result: { content: [{ type: 'text', text: 'hello' }] } })} />)
    const card = screen.getByRole('group', { name: 'Tool exec' })
    expect(card.querySelector('.tool-duration')).toHaveTextContent(/^100 ms · waited 30\.0 s for approval$/)
  })

  it('hidden and bidi characters in the arguments show as marked tokens (summary and expanded), with a warning', async () => {
    const user = userEvent.setup()
    // U+202E would show "cat /tmp/\u202Etxt.exe" as "cat /tmp/exe.txt"; the U+200B splits a path invisibly
    withApp(<ToolCard item={tool({ args: { command: 'cat /tmp/\u202etxt.exe', cwd: '/wo\u200brk' } })} />)
    const card = screen.getByRole('group', { name: 'Tool exec' })
    const summary = card.querySelector('.tool-summary')!
    expect(summary.textContent).toContain('cat /tmp/⟨U+202E⟩txt.exe')
    expect(summary.querySelector('.hidden-char-bidi')).toHaveAttribute('title', 'U+202E right-to-left override (hidden in the text)')
    await user.click(screen.getByRole('button', { name: /exec/ }))
    const args = card.querySelector('.tool-body pre')!
    expect(args.textContent).toContain('"command": "cat /tmp/⟨U+202E⟩txt.exe"')
    expect(args.textContent).toContain('"cwd": "/wo⟨U+200B⟩rk"')
    expect(args.querySelectorAll('.hidden-char')).toHaveLength(2)
    expect(within(card).getByRole('note')).toHaveTextContent('Hidden or bidirectional characters in this call’s arguments: U+202E right-to-left override, U+200B zero width space')
    expect(card.textContent).not.toMatch(/[\u202e\u200b]/)
  })

  it('ordinary arguments: no tokens, no warning', async () => {
    const user = userEvent.setup()
    withApp(<ToolCard item={tool()} />)
    await user.click(screen.getByRole('button', { name: /exec/ }))
    expect(document.querySelector('.hidden-char')).toBeNull()
    expect(screen.queryByRole('note')).toBeNull()
  })

  it('expands to pretty arguments and result, truncated with Show all', async () => {
    const user = userEvent.setup()
    const long = 'x'.repeat(5000)
    withApp(<ToolCard item={tool({ status: 'done', endedAt: 2000, result: { content: [{ type: 'text', text: long }] } })} />)
    const head = screen.getByRole('button', { name: /exec/ })
    expect(head).toHaveAttribute('aria-expanded', 'false')
    await user.click(head)
    expect(head).toHaveAttribute('aria-expanded', 'true')
    const card = screen.getByRole('group', { name: 'Tool exec' })
    expect(within(card).getByText(/"command": "ls -la"/)).toBeInTheDocument()
    const pres = card.querySelectorAll('pre')
    expect(pres[1].textContent!.length).toBe(2000)
    // the whole output is here: the count is its size
    await user.click(within(card).getByRole('button', { name: 'Show all (5,000 characters)' }))
    expect(card.querySelectorAll('pre')[1].textContent!.length).toBe(5000)
    expect(within(card).getByRole('button', { name: 'Copy arguments' })).toBeInTheDocument()
    expect(within(card).getByRole('button', { name: 'Copy result' })).toBeInTheDocument()
  })

  it('a cut output\'s Show all counts what was kept, not the output the marker sizes', async () => {
    const user = userEvent.setup()
    // what the runtime stores of a 1.2 MB output (tools/output-cut.ts): head, the marker with the real size, tail
    const stored = `${'head line\n'.repeat(300)}[output truncated: 50,000 lines, 1,188,894 bytes; kept the first 300 and last 200 lines]\n${'tail line\n'.repeat(200)}`
    withApp(<ToolCard item={tool({ status: 'done', endedAt: 2000, result: { content: [{ type: 'text', text: stored }] } })} />)
    await user.click(screen.getByRole('button', { name: /exec/ }))
    const card = screen.getByRole('group', { name: 'Tool exec' })
    expect(within(card).queryByRole('button', { name: /^Show all \(/ })).toBeNull()
    await user.click(within(card).getByRole('button', { name: `Show all kept output (${stored.length.toLocaleString('en-US')} characters)` }))
    expect(card.querySelectorAll('pre')[1]).toHaveTextContent('1,188,894 bytes')
  })

  it('in the window\'s outline: the card is a heading under the title (h1 → h2), its sections under it (h3), no level skipped', async () => {
    const write = { kind: 'tool' as const, name: 'write', args: { path: 'a.txt', content: 'one\ntwo' }, result: { content: [{ type: 'text', text: 'wrote a.txt' }] } }
    await renderApp({ scripts: [{ steps: [write, { kind: 'text', text: 'Written.' }] }] })
    const user = userEvent.setup({ delay: null })
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'write it{Enter}')
    await screen.findByText('Written.', undefined, LONG)
    const card = screen.getByRole('group', { name: 'Tool write' })
    await user.click(within(card).getByRole('button', { name: /write/ }))
    expect(within(card).getByRole('heading', { level: 2 })).toHaveTextContent(/^write/)
    // the file's view is a chunk of its own: there once it loaded
    await waitFor(() => expect(within(card).getAllByRole('heading', { level: 3 }).map((h) => h.textContent)).toEqual(['Content', 'Arguments', 'Result']), LONG)
    // axe's heading-order: each heading at most one level below the one before it
    const levels = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((h) => Number(h.tagName[1]))
    expect(levels[0]).toBe(1)
    levels.forEach((l, i) => i && expect(l, `heading ${i} (h${l}) after h${levels[i - 1]}`).toBeLessThanOrEqual(levels[i - 1] + 1))
  })

  it('interrupted tools say so', () => {
    withApp(<ToolCard item={tool({ status: 'interrupted', endedAt: 1500 })} />)
    expect(screen.getByRole('group', { name: 'Tool exec' })).toHaveTextContent('Interrupted')
  })
})

describe('approval card', () => {
  const approval = (over: Partial<ApprovalItem> = {}): ApprovalItem => ({
    kind: 'approval',
    key: 'approval:a1',
    runId: 'r1',
    ts: 1,
    request: { id: 'a1', runId: 'r1', sessionKey: 'agent:main:main', toolCallId: 'c1', command: 'rm -rf build', cwd: '/w', createdAt: Date.now(), expiresAt: Date.now() + 60_000 },
    ...over,
  })

  it('Approve / Deny call approvalResolve; the outcome replaces the buttons', async () => {
    const user = userEvent.setup()
    const { bridge, rerender } = withApp(<ApprovalCard item={approval()} sessionKey="agent:main:main" />)
    const card = screen.getByRole('group', { name: 'Approval required' })
    expect(card).toHaveTextContent('rm -rf build')
    await user.click(within(card).getByRole('button', { name: 'Deny' }))
    expect(bridge.calls.find((c) => c.name === 'approvalResolve')?.params).toEqual({ id: 'a1', decision: 'deny' })
    rerender(<ApprovalCard item={approval({ decision: 'deny', resolvedBy: 'user' })} sessionKey="agent:main:main" />)
    expect(screen.getByRole('group', { name: 'Approval required' })).toHaveTextContent('Denied')
    expect(screen.queryByRole('button', { name: 'Approve' })).not.toBeInTheDocument()
    // with its tool card carrying the answer ("Denied — the command was not run"), the card is not shown twice
    rerender(<ApprovalCard item={approval({ decision: 'deny', resolvedBy: 'user', onTool: true })} sessionKey="agent:main:main" />)
    expect(screen.queryByRole('group', { name: 'Approval required' })).not.toBeInTheDocument()
  })

  it('says what "Always allow" covers in text, not only in a tooltip', () => {
    withApp(<ApprovalCard item={approval({ onTool: true })} sessionKey="agent:main:main" />)
    const card = screen.getByRole('group', { name: 'Approval required' })
    expect(card).toHaveTextContent('Always allow: this exact command, in this session only')
    expect(within(card).getByRole('button', { name: 'Always allow' })).toHaveAccessibleDescription('Always allow: this exact command, in this session only')
  })

  it('invisible and text-direction characters in the command are named, with a warning', () => {
    // U+202E reverses what follows on screen: without it shown, the card would read "ls -la # txt.drowssap/cte/ tac"
    const command = 'ls -la # \u202ecat /etc/password.txt\u200b'
    withApp(<ApprovalCard item={approval({ request: { ...approval().request, command } })} sessionKey="agent:main:main" />)
    const card = screen.getByRole('group', { name: 'Approval required' })
    expect(card.querySelector('pre')!.textContent).toBe('ls -la # ⟨U+202E⟩cat /etc/password.txt⟨U+200B⟩')
    const note = within(card).getByRole('note')
    expect(note).toHaveTextContent('Hidden or bidirectional characters in this command: U+202E right-to-left override, U+200B zero width space — shown as ⟨U+…⟩.')
    // marked tokens, named in their title; no raw control left to reorder the card
    const tokens = [...card.querySelectorAll('pre .hidden-char')]
    expect(tokens.map((t) => [t.textContent, t.getAttribute('title')])).toEqual([
      ['⟨U+202E⟩', 'U+202E right-to-left override (hidden in the text)'],
      ['⟨U+200B⟩', 'U+200B zero width space (hidden in the text)'],
    ])
    expect(tokens[0]).toHaveClass('hidden-char-bidi')
    expect(card.textContent).not.toMatch(/[\u202e\u200b]/)
  })

  it('an ordinary command has no warning', () => {
    withApp(<ApprovalCard item={approval()} sessionKey="agent:main:main" />)
    expect(screen.getByRole('group', { name: 'Approval required' }).querySelector('pre')!.textContent).toBe('rm -rf build')
    expect(screen.queryByRole('note')).not.toBeInTheDocument()
  })

  it('end to end with the fake runtime: the run waits for approval and continues after Approve', async () => {
    const user = userEvent.setup()
    await renderApp()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'please approve the cleanup{Enter}')
    const card = await screen.findByRole('group', { name: 'Approval required' }, LONG)
    expect(screen.getByRole('group', { name: 'Tool exec' })).toHaveTextContent('Waiting for approval')
    await user.click(within(card).getByRole('button', { name: 'Approve' }))
    await waitFor(() => expect(screen.getByRole('group', { name: 'Tool exec' })).toHaveTextContent('Done'), LONG)
    // the tool card says who decided; the answered approval card is not left under it as a duplicate
    expect(screen.getByRole('group', { name: 'Tool exec' })).toHaveTextContent('Approved once')
    expect(screen.queryByRole('group', { name: 'Approval required' })).not.toBeInTheDocument()
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    await act(async () => {})
  })
})

describe('run status', () => {
  it('tells model setup errors (a wrong or missing key, an unknown model) from other failures', () => {
    for (const e of [
      'HTTP 401: invalid x-api-key',
      'No API key for provider openai',
      'Unknown model: anthropic/nope',
      'HTTP 403: permission denied',
      'Unauthorized',
      // the runtime's hints for a wrong base URL or model id (runner/http-refusal.ts)
      'Model request failed (HTTP 404 from odd): 404 page not found — nothing is served at http://127.0.0.1:11434/chat/completions: does the base URL need /v1 (http://127.0.0.1:11434/v1)?',
      'Model request failed (HTTP 404 from odd) — nothing is served at http://h/v1/chat/completions: check the base URL, and the API',
      'Model request failed (HTTP 404 from odd): model "x" not found, try pulling it first — the server does not serve this model id',
      // a context window set larger than the server's (runner/context-mismatch.ts names the setting)
      "Model request failed (HTTP 400 from mock): This model's maximum context length is 8192 tokens. — the server's context window is 8192 tokens, but mock/big is set to 200000: set its context window to 8192 (Settings → Models, the “mock” endpoint's model row) and its max tokens well below that",
    ])
      expect(isModelSetupError(e), e).toBe(true)
    for (const e of ['The run timed out and was stopped.', "message too large for this model's context window: ~9000 tokens, window 8192", 'HTTP 500: overloaded', 'HTTP 429: rate limit exceeded', 'The run failed', undefined])
      expect(isModelSetupError(e), String(e)).toBe(false)
  })

  it('a model error says what happened and leads to the model settings', async () => {
    const user = userEvent.setup()
    await renderApp()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'this will error{Enter}')
    const log = screen.getByRole('log', { name: 'Conversation' })
    await waitFor(() => expect(within(log).getAllByRole('status').at(-1)).toHaveTextContent(/^Error: 401 Unauthorized: invalid x-api-key/), LONG)
    await user.click(within(log).getByRole('button', { name: 'Check model setup' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    expect(within(dialog).getByRole('button', { name: 'Models' })).toHaveAttribute('aria-current', 'page')
    expect(within(dialog).getByLabelText('Anthropic API key')).toBeInTheDocument()
  })
})
