// The session's model in the header: a listbox of the configured models (keyboard and screen reader), "Use
// default model", a failed run's way back from a removed provider, and `/model` in the composer.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ModelChoice } from '../../../shared/methods'
import { FakeBridge, type FakeBridgeOptions } from '../bridge/fake-bridge'
import { LONG, renderApp } from '../test-utils'
import { preloadModelList } from '../lazy-views'
import { agentModel } from './ModelPicker'
import { pickerOptions } from './picker-options'

beforeEach(() => localStorage.clear())
// the list is a chunk of its own, preloaded while the app is idle (warm-up.tsx); here before the first open, as there
beforeAll(async () => {
  await preloadModelList()
})

const KEY = 'agent:main:main'
const modelButton = () => screen.getByRole('button', { name: /^Model: / })
const toastText = () => [...document.querySelectorAll('.toast')].map((t) => t.textContent).join('\n')
const patches = (bridge: FakeBridge) => bridge.calls.filter((c) => c.name === 'sessionsPatch').map((c) => c.params as { key: string; model?: string | null })

/** the fake's row of the session (as sessions.list lists it) */
async function rowOf(bridge: FakeBridge) {
  const r = await bridge.sessionsList({})
  return r.ok ? r.data.sessions.find((x) => x.key === KEY) : undefined
}

/** the fake with OpenAI keyed too: two providers to pick from */
function twoProviders(opts: FakeBridgeOptions = {}) {
  const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24, ...opts })
  ;(bridge as unknown as { secrets: Record<string, string> }).secrets.openai = 'set'
  return bridge
}

const choice = (ref: string, configured = true): ModelChoice => {
  const [provider, id] = ref.split('/')
  return { ref, provider, id, name: id, contextWindow: 1, maxTokens: 1, reasoning: false, input: ['text'], configured }
}

describe('pickerOptions', () => {
  it('groups the usable models by provider, marks the default and the current choice, lists a gone choice as unavailable', () => {
    const models = [choice('mock/m1'), choice('mock/big'), choice('local/q'), choice('openai/gpt-5', false)]
    const none = pickerOptions(models, 'mock/m1', undefined)
    expect(none.head).toMatchObject({ ref: null, label: 'Use default model (mock/m1)', current: true })
    expect(none.groups.map((g) => [g.provider, g.options.map((o) => o.label)])).toEqual([
      ['mock', ['m1 (default)', 'big']],
      ['local', ['q']],
    ])
    const chosen = pickerOptions(models, 'mock/m1', 'local/q')
    expect(chosen.head.current).toBe(false)
    expect(chosen.groups[1].options[0]).toMatchObject({ ref: 'local/q', current: true })
    const gone = pickerOptions(models, 'mock/m1', 'gone3/c1')
    expect(gone.groups.at(-1)).toEqual({ provider: 'Not available', options: [{ ref: 'gone3/c1', label: 'gone3/c1 (unavailable)', current: true, unavailable: true }] })
  })
})

describe('agentModel', () => {
  it("is the session's agent's own model when it has one (the runner's default for its sessions)", () => {
    const config = { agents: { defaults: { model: { primary: 'mock/m1' } }, list: [{ id: 'main' }, { id: 'work', model: 'local/q' }] } }
    expect(agentModel(config, 'work')).toBe('local/q')
    expect(agentModel(config, 'main')).toBeUndefined()
    expect(agentModel(undefined, 'main')).toBeUndefined()
  })
})

describe('the header model picker', () => {
  it('keyboard: opens a named listbox at the current model, End and Enter choose another, Esc closes back to the button', async () => {
    const { bridge } = await renderApp({}, twoProviders())
    const user = userEvent.setup()
    await waitFor(() => expect(modelButton()).toHaveAccessibleName(/^Model: anthropic\/claude-sonnet-4-5 \(default\)/), LONG)
    expect(modelButton()).toHaveAttribute('aria-haspopup', 'listbox')
    modelButton().focus()
    await user.keyboard('{Enter}')
    // (the list is a chunk of its own: here once it has loaded, at once after that)
    const list = await screen.findByRole('listbox', { name: 'Model for this session' })
    await waitFor(() => expect(list).toHaveFocus())
    expect(modelButton()).toHaveAttribute('aria-expanded', 'true')
    // grouped by provider, the default marked, the current option active
    expect(within(list).getByRole('group', { name: 'anthropic' })).toBeInTheDocument()
    expect(within(list).getByRole('group', { name: 'openai' })).toBeInTheDocument()
    const active = () => document.getElementById(screen.getByRole('listbox').getAttribute('aria-activedescendant')!)
    expect(active()).toHaveTextContent('Use default model (anthropic/claude-sonnet-4-5)')
    expect(active()).toHaveAttribute('aria-selected', 'true')
    await user.keyboard('{Escape}')
    expect(screen.queryByRole('listbox')).toBeNull()
    expect(modelButton()).toHaveFocus()

    await user.keyboard('{Enter}')
    await user.keyboard('{End}')
    expect(active()).toHaveTextContent('gpt-5')
    await user.keyboard('{Enter}')
    expect(screen.queryByRole('listbox')).toBeNull()
    await waitFor(() => expect(modelButton()).toHaveAccessibleName(/^Model: openai\/gpt-5\. /))
    expect(modelButton()).toHaveFocus()
    expect(patches(bridge)).toEqual([{ key: KEY, model: 'openai/gpt-5' }])
    expect(toastText()).toContain('This session now uses openai/gpt-5.')

    // the next run uses it (the row says so once it starts)
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'hello{Enter}')
    await waitFor(async () => expect((await rowOf(bridge))?.modelProvider).toBe('openai'), LONG)

    // "Use default model" clears the choice
    await user.click(modelButton())
    await user.click(screen.getByRole('option', { name: /Use default model/ }))
    await waitFor(() => expect(modelButton()).toHaveAccessibleName(/\(default\)/))
    expect(patches(bridge).at(-1)).toEqual({ key: KEY, model: null })
  })

  it('while a reply streams, the picker and the note say the change applies from the next message', async () => {
    const { bridge } = await renderApp({}, twoProviders({ scripts: [{ steps: [{ kind: 'untilAborted' }] }] }))
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'long job{Enter}')
    await waitFor(() => expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument(), LONG)
    await user.click(modelButton())
    const list = screen.getByRole('listbox', { name: 'Model for this session' })
    expect(list).toHaveAccessibleDescription(/applies from the next message/)
    // Escape closes the picker, not the reply (Escape elsewhere stops it)
    await user.keyboard('{Escape}')
    expect(screen.queryByRole('listbox')).toBeNull()
    expect(bridge.calls.some((c) => c.name === 'abort')).toBe(false)
    expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument()
    await user.click(modelButton())
    await user.click(within(screen.getByRole('listbox')).getByRole('option', { name: /gpt-5/ }))
    await waitFor(() => expect(toastText()).toContain('the change applies from the next message'))
  })
})

describe('a session whose chosen model is gone', () => {
  const unknown = { steps: [{ kind: 'error' as const, message: 'unknown model provider "gone3" in "gone3/c1"' }] }

  it('the header marks it unavailable; the failed run offers "Choose another model" (the picker) and "Use default model"', async () => {
    const bridge = twoProviders({ scripts: [unknown] })
    await bridge.sessionsPatch({ key: KEY, model: 'gone3/c1' })
    await renderApp({}, bridge)
    const user = userEvent.setup()
    await waitFor(() => expect(modelButton()).toHaveAccessibleName(/^Model: gone3\/c1, unavailable\./), LONG)
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'from the window{Enter}')
    const log = screen.getByRole('log', { name: 'Conversation' })
    const choose = await within(log).findByRole('button', { name: 'Choose another model' }, LONG)
    expect(within(log).getByRole('button', { name: 'Use default model' })).toBeInTheDocument()
    await user.click(choose)
    const list = await screen.findByRole('listbox', { name: 'Model for this session' })
    expect(list).toHaveFocus()
    // the gone choice is shown, not choosable again
    expect(within(list).getByRole('option', { name: /gone3\/c1 \(unavailable\)/ })).toHaveAttribute('aria-disabled', 'true')
    await user.keyboard('{Escape}')
    await user.click(within(log).getByRole('button', { name: 'Use default model' }))
    await waitFor(() => expect(modelButton()).toHaveAccessibleName(/^Model: anthropic\/claude-sonnet-4-5 \(default\)\./))
    expect(patches(bridge).at(-1)).toEqual({ key: KEY, model: null })
    // no choice left to clear: only the picker is offered
    await waitFor(() => expect(within(log).queryByRole('button', { name: 'Use default model' })).toBeNull())
    expect(within(log).getByRole('button', { name: 'Choose another model' })).toBeInTheDocument()
  })
})

describe('/model in the composer', () => {
  it('/model <ref> chooses it and says so; a bare /model says where it stands and opens the picker', async () => {
    const { bridge } = await renderApp({}, twoProviders())
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, '/model openai/gpt-5{Enter}')
    await waitFor(() => expect(toastText()).toContain('This session now uses openai/gpt-5.'))
    await waitFor(() => expect(modelButton()).toHaveAccessibleName(/^Model: openai\/gpt-5\. /))
    expect(bridge.calls.filter((c) => c.name === 'send').map((c) => (c.params as { message: string }).message)).toEqual(['/model openai/gpt-5'])
    await user.type(box, '/model{Enter}')
    const list = await screen.findByRole('listbox', { name: 'Model for this session' })
    expect(list).toHaveFocus()
    expect(toastText()).toContain('This session uses openai/gpt-5.')
  })
})
