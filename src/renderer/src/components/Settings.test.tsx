import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { FakeBridge } from '../bridge/fake-bridge'
import { LONG, renderApp } from '../test-utils'
import type { ModelChoice } from '../../../shared/methods'
import { oneAgentStatusParts } from '../../../shared/status-summary'
import { defaultModelChoices, gatewayEndpoint, keyStorageNote, proxyNote } from './Settings'
import { preloadSettings } from '../lazy-views'

// Settings is a lazily loaded chunk: load it first, as the idle warm-up does in the app (a view that
// suspends inside a click's act() would wait for a flush that never comes; lib/lazy-view.test.tsx
// covers the loading itself)
beforeAll(async () => {
  await preloadSettings()
})
beforeEach(() => localStorage.clear())

const SECRET = 'sk-ant-SECRET-123456789'

const lastSettingsSet = (bridge: FakeBridge) => bridge.calls.filter((c) => c.name === 'settingsSet').at(-1)?.params as { patch: any; baseHash?: string } | undefined

type User = ReturnType<typeof userEvent.setup>

/** Opens Settings from the header; returns its dialog. */
async function openSettings(user: User) {
  await user.click(screen.getByRole('button', { name: 'Settings' }))
  return screen.findByRole('dialog', { name: 'Settings' })
}

/** Opens Settings and the endpoint form of provider `name`. */
async function editEndpoint(user: User, name: string) {
  const dialog = await openSettings(user)
  await user.click(within(dialog).getByRole('button', { name: `Edit ${name}` }))
  return { dialog, form: within(dialog).getByRole('group', { name: `Edit endpoint ${name}` }) }
}

describe('settings', () => {
  it('shows only set / not set for keys and never displays a key', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({ configured: false })
    await user.click(screen.getByRole('button', { name: 'Set up a model' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    expect(within(dialog).getByLabelText('Anthropic API key not set')).toBeInTheDocument()
    expect(within(dialog).getByLabelText('OpenAI API key not set')).toBeInTheDocument()
    const input = within(dialog).getByLabelText('Anthropic API key') as HTMLInputElement
    expect(input.type).toBe('password')
    await user.type(input, SECRET)
    await user.click(within(dialog).getAllByRole('button', { name: 'Save key' })[0])
    await waitFor(() => expect(within(dialog).getByLabelText('Anthropic API key set')).toBeInTheDocument())
    expect(input.value).toBe('')
    expect(document.body.innerHTML).not.toContain(SECRET)
    const patch = bridge.calls.find((c) => c.name === 'settingsSet')!.params as { patch: unknown }
    expect(patch.patch).toEqual({ models: { providers: { anthropic: { apiKey: SECRET } } } })
    // the first key also picks a default model of that provider
    await waitFor(() => expect(within(dialog).getByLabelText('Default model')).toHaveValue('anthropic/claude-sonnet-4-5'))
    // the config the UI holds has no key either
    expect(JSON.stringify((await bridge.settingsGet()).ok && (await bridge.settingsGet()))).not.toContain(SECRET)
  })

  it("Check of a saved provider key says whether it works, or why not; none offered without a key", async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({
      configured: false,
      providerChecks: {
        anthropic: { models: [{ id: 'claude-sonnet-4-5' }, { id: 'claude-haiku-4-5' }] },
        openai: { status: 401, error: 'the server refused the key (HTTP 401): Incorrect API key provided' },
      },
    })
    await user.click(screen.getByRole('button', { name: 'Set up a model' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    expect(within(dialog).queryByRole('button', { name: 'Check the Anthropic key' })).not.toBeInTheDocument()
    await user.type(within(dialog).getByLabelText('Anthropic API key'), SECRET)
    await user.click(within(dialog).getAllByRole('button', { name: 'Save key' })[0])
    await user.click(await within(dialog).findByRole('button', { name: 'Check the Anthropic key' }))
    await waitFor(() => expect(within(dialog).getByRole('status')).toHaveTextContent('The Anthropic key works: 2 models available'))
    expect(bridge.calls.filter((c) => c.name === 'modelsProbe').at(-1)!.params).toEqual({ provider: 'anthropic' })
    await user.type(within(dialog).getByLabelText('OpenAI API key'), 'sk-wrong')
    await user.click(within(dialog).getAllByRole('button', { name: 'Save key' })[1])
    await user.click(await within(dialog).findByRole('button', { name: 'Check the OpenAI key' }))
    await waitFor(() =>
      expect(within(dialog).getByRole('alert')).toHaveTextContent('OpenAI key check failed: the server refused the key (HTTP 401): Incorrect API key provided'),
    )
    // a new key clears the outcome about the old one
    await user.type(within(dialog).getByLabelText('OpenAI API key'), 'sk-right')
    await user.click(within(dialog).getAllByRole('button', { name: 'Save key' })[1])
    await waitFor(() => expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument())
    expect(document.body.innerHTML).not.toContain(SECRET)
  })

  it('onboarding appears without a usable model and disappears once a key is set', async () => {
    const user = userEvent.setup()
    await renderApp({ configured: false })
    expect(screen.getByRole('heading', { name: 'Welcome to Loopdesk' })).toBeInTheDocument()
    expect(screen.queryByRole('textbox', { name: 'Message' })).not.toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Set up a model' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    await user.type(within(dialog).getByLabelText('OpenAI API key'), 'sk-test')
    await user.click(within(dialog).getAllByRole('button', { name: 'Save key' })[1])
    await user.click(within(dialog).getByRole('button', { name: 'Close' }))
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'Welcome to Loopdesk' })).not.toBeInTheDocument())
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeInTheDocument()
  })

  it('saves a local OpenAI-compatible endpoint, validates input, and lists its model', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({ configured: false })
    await user.click(screen.getByRole('button', { name: 'Set up a model' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    const url = within(dialog).getByLabelText('Base URL')
    await user.clear(url)
    await user.type(url, 'not a url')
    await user.type(within(dialog).getByLabelText('Model id'), 'llama3.1:8b')
    await user.click(within(dialog).getByRole('button', { name: 'Save endpoint' }))
    expect(within(dialog).getByRole('alert')).toHaveTextContent('valid http(s) base URL')
    await user.clear(url)
    await user.type(url, 'http://127.0.0.1:1234/v1')
    await user.click(within(dialog).getByRole('button', { name: 'Save endpoint' }))
    await waitFor(() => expect(within(dialog).getByRole('group', { name: 'local' })).toContainElement(within(dialog).getByRole('option', { name: 'llama3.1:8b' })))
    const sent = bridge.calls.find((c) => c.name === 'settingsSet' && (c.params as any).patch.models)!.params as { patch: any; replacePaths?: string[] }
    expect(sent.patch.models.providers.local).toMatchObject({ baseUrl: 'http://127.0.0.1:1234/v1', api: 'openai-completions', models: [{ id: 'llama3.1:8b', contextWindow: 32768 }] })
    // the endpoint's model list is replaced, not merged by id with the previous one (config.patch keeps
    // unnamed list entries)
    expect(sent.replacePaths).toEqual(['models.providers.local.models'])
    // the first usable model becomes the default
    await waitFor(() => expect(within(dialog).getByLabelText('Default model')).toHaveValue('local/llama3.1:8b'))
    expect(bridge.calls.filter((c) => c.name === 'settingsSet').at(-1)!.params).toEqual({ patch: { agents: { defaults: { model: { primary: 'local/llama3.1:8b' } } } }, baseHash: expect.any(String) })
  })

  it('Check asks the endpoint for its models: offers them, fixes a base URL without /v1, says why a check failed', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({
      configured: false,
      modelServers: {
        'http://192.168.1.20:11434/v1': { models: [{ id: 'qwen3:8b' }, { id: 'llama3.1:8b', contextWindow: 131072 }] },
        'http://127.0.0.1:1234/v1': { models: [{ id: 'only-one', contextWindow: 8192 }] },
      },
    })
    await user.click(screen.getByRole('button', { name: 'Set up a model' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    const url = within(dialog).getByLabelText('Base URL')
    // nothing listening there
    await user.click(within(dialog).getByRole('button', { name: 'Check' }))
    await waitFor(() => expect(within(dialog).getByRole('alert')).toHaveTextContent('Check failed: could not connect: could not reach 127.0.0.1:11434: connection refused — is the server running?'))
    // the server is found one level down: offered as the base URL
    await user.clear(url)
    await user.type(url, 'http://192.168.1.20:11434')
    await user.click(within(dialog).getByRole('button', { name: 'Check' }))
    await waitFor(() => expect(within(dialog).getByRole('status')).toHaveTextContent('Connected: 2 models'))
    expect(within(dialog).getByRole('status')).toHaveTextContent('They are at http://192.168.1.20:11434/v1.')
    await user.click(within(dialog).getByRole('button', { name: 'Use this URL' }))
    expect(url).toHaveValue('http://192.168.1.20:11434/v1')
    // the served ids are offered for the model field; picking one with a known context size fills it in
    const model = within(dialog).getByLabelText('Model id')
    expect([...document.querySelectorAll('#endpoint-models option')].map((o) => (o as HTMLOptionElement).value)).toEqual(['llama3.1:8b', 'qwen3:8b'])
    await user.type(model, 'llama3.1:8')
    expect(within(dialog).getByRole('status')).toHaveTextContent('“llama3.1:8” is not among them.')
    await user.type(model, 'b')
    expect(within(dialog).getByRole('status')).not.toHaveTextContent('not among them')
    expect(within(dialog).getByLabelText('Context window (tokens)')).toHaveValue('131072')
    expect(bridge.calls.filter((c) => c.name === 'modelsProbe').map((c) => c.params)).toEqual([
      { baseUrl: 'http://127.0.0.1:11434/v1', api: 'openai-completions' },
      { baseUrl: 'http://192.168.1.20:11434', api: 'openai-completions' },
    ])
    // a server with a single model: it is filled in
    await user.clear(model)
    await user.clear(url)
    await user.type(url, 'http://127.0.0.1:1234/v1')
    await user.click(within(dialog).getByRole('button', { name: 'Check' }))
    await waitFor(() => expect(model).toHaveValue('only-one'))
    expect(within(dialog).getByLabelText('Context window (tokens)')).toHaveValue('8192')
  })

  it('a base URL typed without http:// is completed: Check reaches the server and the field shows the full URL', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({ configured: false, modelServers: { 'http://127.0.0.1:1234/v1': { models: [{ id: 'only-one' }] } } })
    await user.click(screen.getByRole('button', { name: 'Set up a model' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    const url = within(dialog).getByLabelText('Base URL')
    await user.clear(url)
    await user.type(url, ' 127.0.0.1:1234/v1 ')
    await user.click(within(dialog).getByRole('button', { name: 'Check' }))
    await waitFor(() => expect(within(dialog).getByRole('status')).toHaveTextContent('Connected: 1 model'))
    expect(url).toHaveValue('http://127.0.0.1:1234/v1')
    await user.click(within(dialog).getByRole('button', { name: 'Save endpoint' }))
    await waitFor(() => expect(bridge.calls.some((c) => c.name === 'settingsSet' && (c.params as any).patch.models)).toBe(true))
    const sent = bridge.calls.find((c) => c.name === 'settingsSet' && (c.params as any).patch.models)!.params as { patch: any }
    expect(Object.values(sent.patch.models.providers as Record<string, { baseUrl: string }>)[0].baseUrl).toBe('http://127.0.0.1:1234/v1')
  })

  it('after a Check, the served models not listed yet are added in one click, each with the context window the server gives', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({
      configured: false,
      modelServers: { 'http://192.168.1.20:11434/v1': { models: [{ id: 'qwen3:8b' }, { id: 'llama3.1:8b', contextWindow: 131072 }, { id: 'phi4' }] } },
    })
    await user.click(screen.getByRole('button', { name: 'Set up a model' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    const form = within(dialog).getByRole('group', { name: 'New endpoint' })
    const url = within(form).getByLabelText('Base URL')
    await user.clear(url)
    await user.type(url, 'http://192.168.1.20:11434/v1')
    await user.type(within(form).getByLabelText('Model id'), 'phi4')
    await user.click(within(form).getByRole('button', { name: 'Check' }))
    await user.click(await within(form).findByRole('button', { name: 'Add the 2 served models not listed' }))
    const values = (label: string) => within(form).getAllByLabelText(label).map((i) => (i as HTMLInputElement).value)
    // the server's list is sorted by id; the row typed first stays first
    expect(values('Model id')).toEqual(['phi4', 'llama3.1:8b', 'qwen3:8b'])
    expect(values('Context window (tokens)')).toEqual(['32768', '131072', ''])
    expect(within(form).queryByRole('button', { name: /served model/ })).toBeNull()
    await user.click(within(form).getByRole('button', { name: 'Save endpoint' }))
    await within(dialog).findByText('Added the endpoint “local”: its models are local/…')
    expect((bridge.calls.filter((c) => c.name === 'settingsSet')[0].params as any).patch.models.providers.local.models).toEqual([
      { id: 'phi4', contextWindow: 32768 },
      { id: 'llama3.1:8b', contextWindow: 131072 },
      { id: 'qwen3:8b' },
    ])
  })

  it('a Check outcome goes as soon as the URL or API changes, or a new check starts: never two verdicts at once', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({
      configured: false,
      modelServers: { 'http://127.0.0.1:1234/v1': { models: [{ id: 'a' }, { id: 'b' }] } },
    })
    await user.click(screen.getByRole('button', { name: 'Set up a model' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    const url = within(dialog).getByLabelText('Base URL')
    const connected = () => within(dialog).queryByText(/Connected: 2 models/)
    const checkOk = async () => {
      await user.clear(url)
      await user.type(url, 'http://127.0.0.1:1234/v1')
      await user.click(within(dialog).getByRole('button', { name: 'Check' }))
      await waitFor(() => expect(connected()).toBeInTheDocument())
    }
    // the tester's case: a bad URL checked after a good one shows only the URL error
    await checkOk()
    await user.clear(url)
    expect(connected()).toBeNull() // editing the URL already drops it
    await user.type(url, 'notaurl')
    await user.click(within(dialog).getByRole('button', { name: 'Check' }))
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Enter a valid http(s) base URL')
    expect(connected()).toBeNull()
    expect(within(dialog).queryByRole('status')).toBeNull()
    // fixing the URL drops the URL error too
    await checkOk()
    expect(within(dialog).queryByRole('alert')).toBeNull()
    // another API: the server's answer was for the other one
    await user.selectOptions(within(dialog).getByLabelText('API'), 'anthropic-messages')
    expect(connected()).toBeNull()
    expect(document.querySelector('#endpoint-models')).toBeNull()
    // a slow answer for a URL edited meanwhile is dropped
    await user.selectOptions(within(dialog).getByLabelText('API'), 'openai-completions')
    let answer!: () => void
    const probe = bridge.modelsProbe.bind(bridge)
    let asked = 0
    bridge.modelsProbe = (p) => new Promise((resolve) => ((asked += 1), (answer = () => resolve(probe(p)))))
    await user.click(within(dialog).getByRole('button', { name: 'Check' }))
    // unavailable, but not `disabled` (that drops its focus: e2e/settings-check-focus.spec.ts); a click does nothing
    const checking = within(dialog).getByRole('button', { name: 'Checking…' })
    expect(checking).toHaveAttribute('aria-disabled', 'true')
    expect(asked).toBe(1)
    await user.click(checking)
    expect(asked).toBe(1)
    await user.type(url, 'x')
    answer()
    await new Promise((r) => setTimeout(r, 20))
    expect(connected()).toBeNull()
    expect(within(dialog).getByRole('button', { name: 'Check' })).toBeEnabled()
  })

  it('an Anthropic-compatible endpoint is saved with its API, its base without the /v1 the SDK adds', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({ configured: false })
    await user.click(screen.getByRole('button', { name: 'Set up a model' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    await user.selectOptions(within(dialog).getByLabelText('API'), 'anthropic-messages')
    const url = within(dialog).getByLabelText('Base URL')
    await user.clear(url)
    await user.type(url, 'https://gateway.example/anthropic/v1/')
    await user.type(within(dialog).getByLabelText('Model id'), 'claude-compatible')
    await user.click(within(dialog).getByRole('button', { name: 'Check' }))
    await waitFor(() => expect(bridge.calls.some((c) => c.name === 'modelsProbe')).toBe(true))
    expect(bridge.calls.find((c) => c.name === 'modelsProbe')!.params).toMatchObject({ api: 'anthropic-messages' })
    await user.click(within(dialog).getByRole('button', { name: 'Save endpoint' }))
    await waitFor(() => expect(bridge.calls.some((c) => c.name === 'settingsSet' && (c.params as any).patch.models)).toBe(true))
    const sent = bridge.calls.find((c) => c.name === 'settingsSet' && (c.params as any).patch.models)!.params as { patch: any }
    expect(sent.patch.models.providers.local).toMatchObject({ baseUrl: 'https://gateway.example/anthropic', api: 'anthropic-messages' })
  })

  it('agent, gateway and appearance sections save through config.patch / prefs', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp()
    const dialog = await openSettings(user)
    await user.click(within(dialog).getByRole('button', { name: 'Agent' }))
    const timeout = within(dialog).getByLabelText('Run timeout (seconds)')
    await user.clear(timeout)
    await user.type(timeout, '0')
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    expect(within(dialog).getByRole('alert')).toHaveTextContent('whole number of seconds')
    await user.clear(timeout)
    await user.type(timeout, '900')
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect((bridge.calls.filter((c) => c.name === 'settingsSet').at(-1)!.params as any).patch.agents.defaults.timeoutSeconds).toBe(900))
    // an emptied workspace goes back to the default folder, which the field then names
    const workspace = within(dialog).getByLabelText('Workspace folder')
    expect(workspace).toHaveValue('~/loopdesk')
    await user.clear(workspace)
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect((bridge.calls.filter((c) => c.name === 'settingsSet').at(-1)!.params as any).patch.agents.defaults.workspace).toBeNull())
    await waitFor(() => expect(workspace).toHaveAttribute('placeholder', '~/.loopdesk/workspace'))
    expect(((await bridge.settingsGet()) as any).data.config.agents.defaults.workspace).toBeUndefined()

    await user.click(within(dialog).getByRole('button', { name: 'Gateway' }))
    expect(within(dialog).getByText(/npx loopdesk gateway call health --url ws:\/\/127.0.0.1:18789 --token/)).toBeInTheDocument()
    expect(within(dialog).getByRole('status', { name: 'Gateway address' })).toHaveTextContent('Listening on ws://127.0.0.1:18789')
    // no token in the config: the gateway's own (generated, in the state dir) is in use — not "not set"
    expect(within(dialog).getByText('Generated token')).toBeInTheDocument()
    await user.click(within(dialog).getByRole('button', { name: 'Generate new token' }))
    await waitFor(() => expect(within(dialog).getByText(/--token [0-9a-f]{48}/)).toBeInTheDocument())
    expect(within(dialog).getByText('Token set')).toBeInTheDocument()

    await user.click(within(dialog).getByRole('button', { name: 'Appearance' }))
    await user.click(within(dialog).getByRole('radio', { name: 'Dark' }))
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('dark'))
    expect(bridge.calls.filter((c) => c.name === 'prefsSet').at(-1)!.params).toEqual({ theme: 'dark' })
  }, 15_000)

  it('a save refused by the rate limit says so, keeps what was typed and is sent again after retryAfterMs', async () => {
    const user = userEvent.setup()
    // like the gateway's 3 writes per 60 s, scaled down
    const { bridge } = await renderApp({ configWriteLimit: { max: 1, windowMs: 1500 } })
    const dialog = await openSettings(user)
    await user.click(within(dialog).getByRole('button', { name: 'Agent' }))
    const timeout = within(dialog).getByLabelText('Run timeout (seconds)')
    const saves = () => bridge.calls.filter((c) => c.name === 'settingsSet').length
    const savedTimeout = async () => {
      const r = await bridge.settingsGet()
      return r.ok ? (r.data.config as any).agents.defaults.timeoutSeconds : undefined
    }
    await user.clear(timeout)
    await user.type(timeout, '900')
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(async () => expect(await savedTimeout()).toBe(900))
    await user.clear(timeout)
    await user.type(timeout, '1200')
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    const notice = await within(dialog).findByRole('status', { name: 'Save retry' })
    expect(notice).toHaveTextContent(/Too many changes in a short time.*Retrying your change in [12] s/)
    expect(screen.queryByText(/rate limit exceeded/)).toBeNull() // no raw error toast
    expect(timeout).toHaveValue('1200')
    expect(await savedTimeout()).toBe(900)
    // the retry goes out by itself once the window allows it
    await waitFor(async () => expect(await savedTimeout()).toBe(1200), { timeout: 5000 })
    await waitFor(() => expect(within(dialog).queryByRole('status', { name: 'Save retry' })).toBeNull())
    expect(timeout).toHaveValue('1200')

    // "Don't retry" drops the waiting save; the field keeps its value for a later save
    await user.clear(timeout)
    await user.type(timeout, '1500')
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await within(dialog).findByRole('status', { name: 'Save retry' })
    const before = saves()
    await user.click(within(dialog).getByRole('button', { name: "Don't retry" }))
    expect(within(dialog).queryByRole('status', { name: 'Save retry' })).toBeNull()
    await new Promise((r) => setTimeout(r, 1700))
    expect(saves()).toBe(before)
    expect(await savedTimeout()).toBe(1200)
    expect(timeout).toHaveValue('1500')
  }, 15_000)

  it('the CLI snippet uses the port the gateway really listens on (status), not the configured one', async () => {
    const user = userEvent.setup()
    // port 18789 is configured but was taken: the app's gateway fell back to 18790
    const { bridge } = await renderApp({ gatewayPort: 18789, listeningPort: 18790 })
    const dialog = await openSettings(user)
    await user.click(within(dialog).getByRole('button', { name: 'Gateway' }))
    await waitFor(() => expect(within(dialog).getByText(/--url ws:\/\/127\.0\.0\.1:18790 --token/)).toBeInTheDocument())
    expect(within(dialog).queryByText(/127\.0\.0\.1:18789/)).toBeNull()
    expect(within(dialog).getByRole('status', { name: 'Gateway address' })).toHaveTextContent('port 18789 was taken, so it uses 18790')
    // the field still edits the configured port
    expect(within(dialog).getByLabelText('Gateway port')).toHaveValue('18789')
    // opening the section asked the runtime again (the port can change while the app runs)
    expect(bridge.calls.filter((c) => c.name === 'status').length).toBeGreaterThanOrEqual(2)
  })

  it('says when no gateway is listening', async () => {
    const user = userEvent.setup()
    await renderApp({ gatewayPort: 20000, listeningPort: null })
    const dialog = await openSettings(user)
    await user.click(within(dialog).getByRole('button', { name: 'Gateway' }))
    expect(within(dialog).getByRole('status', { name: 'Gateway address' })).toHaveTextContent('No gateway is listening now; it will use port 20000.')
    expect(within(dialog).getByText(/--url ws:\/\/127\.0\.0\.1:20000 /)).toBeInTheDocument()
    expect(within(dialog).getByText('Generated at start')).toBeInTheDocument()
  })

  it('gateway address: status first, then the gateway this page talks to, then the config', () => {
    const status = { ...oneAgentStatusParts('x', 'main', '/s/sessions.json', 0), ok: true as const, version: 'x', uptimeMs: 1, stateDir: '/s', activeRuns: 0, lanes: {}, configIssues: [] }
    expect(gatewayEndpoint({ ...status, gateway: { port: 4242, url: 'ws://127.0.0.1:4242', fellBack: true } }, 18789, 'ws://127.0.0.1:5555')).toEqual({ port: 4242, url: 'ws://127.0.0.1:4242', listening: true, fellBack: true })
    expect(gatewayEndpoint(status, 18789, 'ws://127.0.0.1:5555')).toEqual({ port: 5555, url: 'ws://127.0.0.1:5555', listening: true, fellBack: false })
    expect(gatewayEndpoint(undefined, 18800)).toEqual({ port: 18800, url: 'ws://127.0.0.1:18800', listening: false, fellBack: false })
    expect(gatewayEndpoint(undefined, undefined).port).toBe(18789)
  })

  it('the endpoint key is entered like a provider key: write-only, set / not set, removable', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({ configured: false })
    await user.click(screen.getByRole('button', { name: 'Set up a model' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    // no endpoint yet: no key field for it
    expect(within(dialog).queryByLabelText('Endpoint API key')).toBeNull()
    await user.type(within(dialog).getByLabelText('Model id'), 'qwen')
    await user.click(within(dialog).getByRole('button', { name: 'Save endpoint' }))
    const input = (await within(dialog).findByLabelText('Endpoint API key')) as HTMLInputElement
    expect(input.type).toBe('password')
    expect(within(dialog).getByLabelText('Endpoint API key not set')).toBeInTheDocument()
    await user.type(input, SECRET)
    const row = input.closest('.key-row') as HTMLElement
    await user.click(within(row).getByRole('button', { name: 'Save key' }))
    await waitFor(() => expect(within(dialog).getByLabelText('Endpoint API key set')).toBeInTheDocument())
    expect(input.value).toBe('')
    expect(document.body.innerHTML).not.toContain(SECRET)
    expect((bridge.calls.filter((c) => c.name === 'settingsSet').find((c) => JSON.stringify(c.params).includes(SECRET))!.params as { patch: unknown }).patch).toEqual({
      models: { providers: { local: { apiKey: SECRET } } },
    })
    await user.click(within(row).getByRole('button', { name: 'Remove Endpoint key' }))
    await waitFor(() => expect(within(dialog).getByLabelText('Endpoint API key not set')).toBeInTheDocument())
  })
})

describe('a config file with problems', () => {
  const issues = [
    { path: 'models.providers.local.models[0].contextWindow', message: 'must be integer >= 1' },
    { path: 'agents.defaults.timeoutSecs', message: 'unknown key' },
    { path: 'gateway.bind', message: 'must be one of "loopback", "lan", "all"' },
  ]

  it('the welcome card says so, names the first problems and leads to Settings, where a repairing save goes through', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({ configured: false, configIssues: issues })
    const card = screen.getByRole('alert', { name: 'Config problems' })
    expect(card).toHaveTextContent('Your config file (~/.loopdesk/loopdesk.json) has 3 problems, so the settings in it are not used')
    expect(within(card).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'models.providers.local.models[0].contextWindow: must be integer >= 1',
      'agents.defaults.timeoutSecs: unknown key',
      '…and 1 more',
    ])
    expect(card).toHaveTextContent('Fix it in Settings')
    await user.click(screen.getByRole('button', { name: 'Fix in Settings' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    expect(within(dialog).getByRole('alert', { name: 'Config file problems' })).toHaveTextContent(
      /^Config problems: .*gateway\.bind: must be one of .*\. Changes you save here take effect once these are fixed — until then the last good settings stay in use; the forms show what the file says, saved changes included\.$/,
    )
    // saving the endpoint rewrites the broken model entry: the save goes through, the list shrinks
    await user.type(within(dialog).getByLabelText('Model id'), 'llama3.1')
    await user.click(within(dialog).getByRole('button', { name: 'Save endpoint' }))
    const problems = () => within(dialog).getByRole('alert', { name: 'Config file problems' })
    await waitFor(() => expect(problems()).not.toHaveTextContent('contextWindow'))
    expect(problems()).toHaveTextContent('agents.defaults.timeoutSecs: unknown key; gateway.bind')
    expect(bridge.calls.filter((c) => c.name === 'settingsSet').length).toBeGreaterThan(0)
    // saved but not in effect (problems remain): the form edits what was saved, not the last good config
    const form = within(dialog).getByRole('group', { name: 'Edit endpoint local' })
    expect(within(form).getByLabelText('Model id')).toHaveValue('llama3.1')
    expect(within(dialog).getByRole('listitem', { name: 'Endpoint local' })).toBeInTheDocument()
    await user.click(within(dialog).getByRole('button', { name: 'Close' }))
    // the runtime still runs on the last good config, which has no usable model: the card stays, shorter
    expect(screen.getByRole('alert', { name: 'Config problems' })).toHaveTextContent('has 2 problems')
  })

  it('saved while problems remain: the forms keep showing what was saved (the file), also after reopening — never the last good values a later save would write back', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({ configIssues: [{ path: 'gateway.bind', message: 'must be one of "loopback", "lan", "all"' }] })
    const open = async () => {
      await user.click(screen.getByRole('button', { name: 'Settings' }))
      return screen.findByRole('dialog', { name: 'Settings' })
    }
    let dialog = await open()
    // keys are stored at once, problems or not: OpenAI's models become usable
    await user.type(within(dialog).getByLabelText('OpenAI API key'), 'sk-openai')
    await user.click(within(dialog).getAllByRole('button', { name: 'Save key' })[1])
    await within(dialog).findByRole('option', { name: 'GPT-5' })
    // the default model: the pick stays picked (the runtime answers with the last good config, still the old one)
    await user.selectOptions(within(dialog).getByLabelText('Default model'), 'openai/gpt-5')
    await waitFor(() => expect(lastSettingsSet(bridge)).toEqual({ patch: { agents: { defaults: { model: { primary: 'openai/gpt-5' } } } }, baseHash: expect.any(String) }))
    expect(((await bridge.settingsGet()) as any).data.config.agents.defaults.model.primary).toBe('anthropic/claude-sonnet-4-5')
    expect(within(dialog).getByLabelText('Default model')).toHaveValue('openai/gpt-5')
    // a new endpoint: listed and in its Edit form once saved
    await user.type(within(dialog).getByLabelText('Model id'), 'qwen3')
    await user.click(within(dialog).getByRole('button', { name: 'Save endpoint' }))
    await within(dialog).findByRole('group', { name: 'Edit endpoint local' })
    expect(within(dialog).getByRole('listitem', { name: 'Endpoint local' })).toHaveTextContent('qwen3')
    await user.click(within(dialog).getByRole('button', { name: 'Agent' }))
    const timeout = within(dialog).getByLabelText('Run timeout (seconds)')
    await user.clear(timeout)
    await user.type(timeout, '42')
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(lastSettingsSet(bridge)!.patch).toMatchObject({ agents: { defaults: { timeoutSeconds: 42 } } }))
    await user.click(within(dialog).getByRole('button', { name: 'Close' }))

    // reopened: the forms start from the file, so saving one section does not undo another's saved value
    dialog = await open()
    expect(within(dialog).getByLabelText('Default model')).toHaveValue('openai/gpt-5')
    expect(within(dialog).getByRole('listitem', { name: 'Endpoint local' })).toBeInTheDocument()
    await user.click(within(dialog).getByRole('button', { name: 'Agent' }))
    expect(within(dialog).getByLabelText('Run timeout (seconds)')).toHaveValue('42')
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(lastSettingsSet(bridge)!.patch).toEqual({ agents: { defaults: { timeoutSeconds: 42, workspace: '~/loopdesk' } } }))
  })

  it('closing with something typed and not saved asks first; Keep editing keeps it, Discard closes', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp()
    const dialog = await openSettings(user)
    await user.type(within(dialog).getByLabelText('Anthropic API key'), 'sk-half')
    await user.click(within(dialog).getByRole('button', { name: 'Close' }))
    let confirm = screen.getByRole('alertdialog', { name: 'Discard unsaved changes?' })
    expect(confirm).toHaveTextContent('Not saved yet: the Anthropic key. Close Settings and discard it?')
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }))
    expect(await screen.findByRole('dialog', { name: 'Settings' })).toBeInTheDocument()
    expect(within(dialog).getByLabelText('Anthropic API key')).toHaveValue('sk-half')
    // Escape asks the same; the list names every form holding something
    await user.click(within(dialog).getByRole('button', { name: 'Agent' }))
    await user.type(within(dialog).getByLabelText('Run timeout (seconds)'), '0')
    await user.keyboard('{Escape}')
    confirm = screen.getByRole('alertdialog', { name: 'Discard unsaved changes?' })
    expect(confirm).toHaveTextContent('Not saved yet: the Anthropic key, the run settings. Close Settings and discard them?')
    await user.click(within(confirm).getByRole('button', { name: 'Discard and close' }))
    expect(screen.queryByRole('dialog', { name: 'Settings' })).toBeNull()
    expect(bridge.calls.filter((c) => c.name === 'settingsSet')).toHaveLength(0)
    // nothing typed: Close closes at once; a saved form is nothing to discard
    await user.click(screen.getByRole('button', { name: 'Settings' }))
    const again = await screen.findByRole('dialog', { name: 'Settings' })
    await user.click(within(again).getByRole('button', { name: 'Agent' }))
    await user.clear(within(again).getByLabelText('Run timeout (seconds)'))
    await user.type(within(again).getByLabelText('Run timeout (seconds)'), '120')
    await user.click(within(again).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(lastSettingsSet(bridge)!.patch).toMatchObject({ agents: { defaults: { timeoutSeconds: 120 } } }))
    await user.click(within(again).getByRole('button', { name: 'Close' }))
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(screen.queryByRole('dialog', { name: 'Settings' })).toBeNull()
  })

  it('what was typed and not saved yet survives a look at another section', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp()
    const dialog = await openSettings(user)
    await user.type(within(dialog).getByLabelText('Model id'), 'half-typed')
    await user.click(within(dialog).getByRole('button', { name: 'Agent' }))
    await user.clear(within(dialog).getByLabelText('Run timeout (seconds)'))
    await user.type(within(dialog).getByLabelText('Run timeout (seconds)'), '77')
    await user.click(within(dialog).getByRole('button', { name: 'Gateway' }))
    await user.click(within(dialog).getByRole('button', { name: 'Models' }))
    expect(within(dialog).getByLabelText('Model id')).toHaveValue('half-typed')
    await user.click(within(dialog).getByRole('button', { name: 'Agent' }))
    expect(within(dialog).getByLabelText('Run timeout (seconds)')).toHaveValue('77')
    expect(bridge.calls.filter((c) => c.name === 'settingsSet')).toHaveLength(0)
  })

  it('a file that cannot be read: the card and the banner say to fix it in an editor; a save is refused and what was typed stays', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({ configured: false, configIssues: [{ path: '', message: "syntax error: invalid character '}' (line 3, column 5)" }] })
    expect(screen.getByRole('alert', { name: 'Config problems' })).toHaveTextContent('Fix it in the file: it cannot be read, so Settings cannot save to it.')
    await user.click(screen.getByRole('button', { name: 'Fix in Settings' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    expect(within(dialog).getByRole('alert', { name: 'Config file problems' })).toHaveTextContent(
      "Config problems: (file): syntax error: invalid character '}' (line 3, column 5). Settings cannot save to the file until it can be read again: fix it in an editor (~/.loopdesk/loopdesk.json).",
    )
    await user.type(within(dialog).getByLabelText('Model id'), 'qwen3')
    await user.click(within(dialog).getByRole('button', { name: 'Save endpoint' }))
    await within(dialog).findByText(/^Could not save the endpoint: cannot patch ~\/\.loopdesk\/loopdesk\.json: syntax error/)
    expect(within(dialog).getByLabelText('Model id')).toHaveValue('qwen3')
    expect(within(dialog).getByRole('group', { name: 'New endpoint' })).toBeInTheDocument()
    expect(bridge.calls.filter((c) => c.name === 'settingsSet')).toHaveLength(1)
  })

  it('the welcome card without config problems has no problem list', async () => {
    await renderApp({ configured: false })
    expect(screen.getByRole('heading', { name: 'Welcome to Loopdesk' })).toBeInTheDocument()
    expect(screen.queryByRole('alert', { name: 'Config problems' })).not.toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Set up a model' })).toBeInTheDocument()
  })

  it('a refused save: its toast sits in the dialog footer below the form, not floating over the Save / Check buttons', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp()
    bridge.settingsSet = async () => ({ ok: false, error: { code: 'INVALID_REQUEST', message: 'invalid config: agents.defaults.timeoutSeconds: must be integer >= 0' } })
    const dialog = await openSettings(user)
    await user.click(within(dialog).getByRole('button', { name: 'Agent' }))
    await user.click(within(dialog).getByRole('button', { name: 'Save' }))
    const toast = await within(dialog).findByText(/^Could not save settings: invalid config/)
    const footer = toast.closest('footer')!
    expect(footer).toHaveClass('modal-foot')
    // the footer follows the scrolling body in the dialog's column: nothing of the form is under it
    expect(dialog.querySelector('.modal-body')!.nextElementSibling).toBe(footer)
    expect(within(footer).queryByRole('button', { name: 'Save' })).toBeNull()
    expect(document.querySelectorAll('.toasts:not(.toasts-inline)')).toHaveLength(0)
    // dismissable from the keyboard inside the dialog; with no toast left the strip stays, empty (styles.css
    // gives it no room): the live region is there before the next toast
    await user.click(within(footer).getByRole('button', { name: 'Dismiss' }))
    expect(footer.querySelector('.toasts-inline')).not.toBeNull()
    expect(footer.querySelector('.toast')).toBeNull()
    // closed dialog: toasts float again
    await user.click(within(dialog).getByRole('button', { name: 'Close' }))
    expect(document.querySelector('.toasts:not(.toasts-inline)')).not.toBeNull()
  })
})

describe('endpoints of your own', () => {
  /** a FakeBridge whose loopdesk.json already has a provider `mock` (written by hand or by the CLI) */
  async function withMock(primary = 'mock/m1') {
    const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24 })
    await bridge.settingsSet({
      patch: {
        models: {
          providers: {
            mock: {
              baseUrl: 'http://127.0.0.1:9999/v1',
              api: 'openai-completions',
              apiKey: 'sk-mock',
              models: [{ id: 'm1', contextWindow: 16384, maxTokens: 2048, reasoning: true }, { id: 'm2' }],
            },
          },
        },
        agents: { defaults: { model: { primary } } },
      },
    })
    bridge.calls.length = 0
    return renderApp({}, bridge)
  }
  const lastPatch = (bridge: FakeBridge) => bridge.calls.filter((c) => c.name === 'settingsSet').at(-1)?.params as { patch: any; replacePaths?: string[] } | undefined

  it('lists a provider from the config file; Edit loads it and Save writes back to it, not to a new "local"', async () => {
    const user = userEvent.setup()
    const { bridge } = await withMock()
    const dialog = await openSettings(user)
    const row = within(within(dialog).getByRole('list', { name: 'Configured endpoints' })).getByRole('listitem', { name: 'Endpoint mock' })
    for (const text of ['mock', 'OpenAI-compatible', 'Key set', 'http://127.0.0.1:9999/v1', 'm1, m2']) expect(row).toHaveTextContent(text)
    // the form adds a new endpoint, under a name of its own — not Ollama's defaults shown as if they were mock's
    const fresh = within(dialog).getByRole('group', { name: 'New endpoint' })
    expect(within(fresh).getByLabelText('Name')).toHaveValue('local')

    await user.click(within(row).getByRole('button', { name: 'Edit mock' }))
    const form = within(dialog).getByRole('group', { name: 'Edit endpoint mock' })
    expect(within(form).getByLabelText('Name')).toHaveValue('mock')
    expect(within(form).getByLabelText('Base URL')).toHaveValue('http://127.0.0.1:9999/v1')
    expect(within(form).getByLabelText('Base URL')).toHaveFocus()
    // every model of the provider, each with its limits (empty: the runtime's defaults)
    const values = (label: string) => within(form).getAllByLabelText(label).map((i) => (i as HTMLInputElement).value)
    expect(values('Model id')).toEqual(['m1', 'm2'])
    expect(values('Context window (tokens)')).toEqual(['16384', ''])
    expect(values('Max tokens')).toEqual(['2048', ''])
    // its key is edited there too
    expect(within(form).getByLabelText('Endpoint API key set')).toBeInTheDocument()
    const url = within(form).getByLabelText('Base URL')
    await user.clear(url)
    await user.type(url, 'http://127.0.0.1:9998/v1')
    await user.click(within(form).getByRole('button', { name: 'Save endpoint' }))
    await within(dialog).findByText('Saved the endpoint “mock”.')
    const sent = lastPatch(bridge)!
    // what the file said about m1 (maxTokens, reasoning) and its other model stay
    expect(sent.patch).toEqual({
      models: {
        providers: {
          mock: {
            baseUrl: 'http://127.0.0.1:9998/v1',
            api: 'openai-completions',
            models: [{ id: 'm1', contextWindow: 16384, maxTokens: 2048, reasoning: true }, { id: 'm2' }],
          },
        },
      },
    })
    expect(sent.replacePaths).toEqual(['models.providers.mock.models'])
    const saved = ((await bridge.settingsGet()) as any).data.config.models.providers
    expect(Object.keys(saved)).toEqual(['mock'])
    expect(within(dialog).getByRole('listitem', { name: 'Endpoint mock' })).toHaveTextContent('http://127.0.0.1:9998/v1')
  })

  it('Remove asks first, warns when the default model is one of its models, and removes the provider and its key', async () => {
    const user = userEvent.setup()
    const { bridge } = await withMock()
    const dialog = await openSettings(user)
    const saves = () => bridge.calls.filter((c) => c.name === 'settingsSet').length
    await user.click(within(dialog).getByRole('button', { name: 'Remove mock' }))
    let confirm = screen.getByRole('alertdialog', { name: 'Remove endpoint?' })
    expect(confirm).toHaveTextContent('Remove “mock” (http://127.0.0.1:9999/v1) and its 2 models from the config? A key stored for it is deleted too.')
    expect(confirm).toHaveTextContent('The default model “mock/m1” is one of them')
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }))
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(saves()).toBe(0)
    expect(within(dialog).getByRole('listitem', { name: 'Endpoint mock' })).toBeInTheDocument()

    await user.click(within(dialog).getByRole('button', { name: 'Remove mock' }))
    confirm = screen.getByRole('alertdialog', { name: 'Remove endpoint?' })
    await user.click(within(confirm).getByRole('button', { name: 'Remove endpoint' }))
    await within(dialog).findByText('Removed the endpoint “mock”.')
    // merge patch: null deletes the provider's entry
    expect(lastPatch(bridge)).toEqual({ patch: { models: { providers: { mock: null } } }, baseHash: expect.any(String) })
    expect(within(dialog).queryByRole('list', { name: 'Configured endpoints' })).toBeNull()
    const after = ((await bridge.settingsGet()) as any).data
    expect(after.config.models.providers.mock).toBeUndefined()
    expect(after.secrets.mock).toBeUndefined()
    expect(within(dialog).queryByRole('option', { name: 'm1' })).toBeNull()
  })

  it('no warning when the default model is elsewhere', async () => {
    const user = userEvent.setup()
    await withMock('anthropic/claude-sonnet-4-5')
    await user.click(screen.getByRole('button', { name: 'Settings' }))
    await user.click(within(await screen.findByRole('dialog', { name: 'Settings' })).getByRole('button', { name: 'Remove mock' }))
    expect(screen.getByRole('alertdialog', { name: 'Remove endpoint?' })).not.toHaveTextContent('default model')
  })

  it('names the sessions that use it: a chosen model of it fails until another is chosen, a last run on it moves to the default model', async () => {
    const user = userEvent.setup()
    const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24, seed: [{ key: 'agent:main:main', label: 'Main' }, { key: 'agent:main:local', label: 'Local chat' }, { key: 'agent:main:other', label: 'Other' }] })
    await bridge.settingsSet({
      patch: { models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9999/v1', api: 'openai-completions', models: [{ id: 'm1' }, { id: 'm2' }] } } } },
    })
    await bridge.sessionsPatch({ key: 'agent:main:main', model: 'mock/m2' })
    // ran on mock/m1, then went back to the default: its row still names the provider it last ran on
    await bridge.sessionsPatch({ key: 'agent:main:local', model: 'mock/m1' })
    await bridge.sessionsPatch({ key: 'agent:main:local', model: null })
    await renderApp({}, bridge)
    await user.click(screen.getByRole('button', { name: 'Settings' }))
    await user.click(within(await screen.findByRole('dialog', { name: 'Settings' })).getByRole('button', { name: 'Remove mock' }))
    const confirm = screen.getByRole('alertdialog', { name: 'Remove endpoint?' })
    expect(confirm).toHaveTextContent('1 session chose a model of “mock” (“Main”): its messages fail until another model is chosen')
    expect(confirm).toHaveTextContent('1 session last ran on “mock” (“Local chat”): from its next message it uses the default model, anthropic/claude-sonnet-4-5.')
    expect(confirm).not.toHaveTextContent('Other')
  })

  it('a new endpoint gets a name of its own; a taken name is refused; after a save the form edits it', async () => {
    const user = userEvent.setup()
    const { bridge } = await renderApp({ configured: false })
    await user.click(screen.getByRole('button', { name: 'Set up a model' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    await user.type(within(dialog).getByLabelText('Model id'), 'qwen')
    await user.click(within(dialog).getByRole('button', { name: 'Save endpoint' }))
    await within(dialog).findByText('Added the endpoint “local”: its models are local/…')
    const edit = within(dialog).getByRole('group', { name: 'Edit endpoint local' })
    // saving again writes to the same provider
    await user.click(within(edit).getByRole('button', { name: 'Save endpoint' }))
    await waitFor(() => expect(bridge.calls.filter((c) => c.name === 'settingsSet' && (c.params as any).patch.models)).toHaveLength(2))
    expect(Object.keys(((await bridge.settingsGet()) as any).data.config.models.providers)).toEqual(['local'])

    await user.click(within(within(dialog).getByRole('group', { name: 'Edit endpoint local' })).getByRole('button', { name: 'Add another endpoint' }))
    const fresh = within(dialog).getByRole('group', { name: 'New endpoint' })
    const name = within(fresh).getByLabelText('Name')
    expect(name).toHaveValue('local-2')
    await user.clear(name)
    await user.type(name, 'local')
    await user.type(within(fresh).getByLabelText('Model id'), 'other')
    await user.click(within(fresh).getByRole('button', { name: 'Save endpoint' }))
    expect(within(fresh).getByRole('alert')).toHaveTextContent('A provider named “local” exists already')
    await user.clear(name)
    await user.type(name, 'a b')
    await user.click(within(fresh).getByRole('button', { name: 'Save endpoint' }))
    expect(within(fresh).getByRole('alert')).toHaveTextContent('letters, digits, - and _ only')
    await user.clear(name)
    await user.type(name, 'lab')
    await user.click(within(fresh).getByRole('button', { name: 'Save endpoint' }))
    await within(dialog).findByRole('listitem', { name: 'Endpoint lab' })
    expect(Object.keys(((await bridge.settingsGet()) as any).data.config.models.providers)).toEqual(['local', 'lab'])
    expect(lastPatch(bridge)!.replacePaths).toEqual(['models.providers.lab.models'])
  })

  it('Edit renames a provider in one write: its key moves in the runtime (never through the window), the default model and agents follow; clashes are refused', async () => {
    const user = userEvent.setup()
    const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24 })
    await bridge.settingsSet({
      patch: {
        models: {
          providers: {
            mock: { baseUrl: 'http://127.0.0.1:9999/v1', api: 'openai-completions', apiKey: 'sk-mock', models: [{ id: 'm1', contextWindow: 16384 }, { id: 'm2' }] },
            other: { baseUrl: 'http://127.0.0.1:9998/v1', models: [{ id: 'x' }] },
          },
        },
        agents: { defaults: { model: { primary: 'mock/m1' } }, list: [{ id: 'work', model: 'mock/m2' }, { id: 'lab', model: 'other/x' }] },
      },
    })
    bridge.calls.length = 0
    await renderApp({}, bridge)
    const { dialog, form } = await editEndpoint(user, 'mock')
    const name = within(form).getByLabelText('Name')
    const saveAs = async (n: string) => {
      await user.clear(name)
      await user.type(name, n)
      await user.click(within(form).getByRole('button', { name: 'Save endpoint' }))
    }
    await saveAs('other')
    expect(within(form).getByRole('alert')).toHaveTextContent('A provider named “other” exists already: use Edit on it, or pick another name.')
    // a built-in provider's name, also one only the model list knows (Google has no key row of its own here)
    await saveAs('openai')
    expect(within(form).getByRole('alert')).toHaveTextContent('“openai” is the name of a built-in provider: pick another name.')
    await saveAs('google')
    expect(within(form).getByRole('alert')).toHaveTextContent('“google” is the name of a built-in provider')
    await saveAs('a/b')
    expect(within(form).getByRole('alert')).toHaveTextContent('letters, digits, - and _ only')
    expect(bridge.calls.filter((c) => c.name === 'providerRename' || c.name === 'settingsSet')).toHaveLength(0)

    // a refused rename: a toast, and the form keeps everything typed (nothing saved is lost either)
    const rename = bridge.providerRename.bind(bridge)
    bridge.providerRename = async () => ({ ok: false, error: { code: 'UNAVAILABLE', message: 'the keychain is locked' } })
    const url = within(form).getByLabelText('Base URL')
    await user.clear(url)
    await user.type(url, 'http://127.0.0.1:9997/v1')
    await saveAs('lab')
    await within(dialog).findByText('Could not rename “mock”: the keychain is locked')
    expect(name).toHaveValue('lab')
    expect(url).toHaveValue('http://127.0.0.1:9997/v1')
    expect(within(dialog).getByRole('listitem', { name: 'Endpoint mock' })).toBeInTheDocument()

    bridge.providerRename = rename
    await user.click(within(form).getByRole('button', { name: 'Save endpoint' }))
    await within(dialog).findByText('Renamed “mock” to “lab”: its models are lab/… now.')
    const call = bridge.calls.filter((c) => c.name === 'providerRename').at(-1)!.params
    expect(call).toEqual({
      from: 'mock',
      to: 'lab',
      baseHash: expect.any(String),
      patch: { models: { providers: { lab: { baseUrl: 'http://127.0.0.1:9997/v1', api: 'openai-completions', models: [{ id: 'm1', contextWindow: 16384 }, { id: 'm2' }] } } } },
      replacePaths: ['models.providers.lab.models'],
    })
    // the key never passed through the window: no call carried it, the renamed endpoint has it
    expect(JSON.stringify(bridge.calls)).not.toContain('sk-mock')
    const row = within(dialog).getByRole('listitem', { name: 'Endpoint lab' })
    expect(row).toHaveTextContent('Key set')
    expect(within(dialog).queryByRole('listitem', { name: 'Endpoint mock' })).toBeNull()
    expect(within(dialog).getByRole('group', { name: 'Edit endpoint lab' })).toBeInTheDocument()
    await waitFor(() => expect(within(dialog).getByLabelText('Default model')).toHaveValue('lab/m1'))
    const saved = ((await bridge.settingsGet()) as any).data
    expect(Object.keys(saved.config.models.providers)).toEqual(['lab', 'other'])
    expect(saved.config.agents.list).toEqual([{ id: 'work', model: 'lab/m2' }, { id: 'lab', model: 'other/x' }])
    expect(saved.secrets).toMatchObject({ lab: 'set' })
    expect(saved.secrets.mock).toBeUndefined()
  })

  it('the form edits every model: add, change id and limits, remove; removing the default model asks first', async () => {
    const user = userEvent.setup()
    const { bridge } = await withMock()
    const { dialog, form } = await editEndpoint(user, 'mock')
    const models = within(form).getByRole('list', { name: 'Models' })
    const row = (n: number) => within(models).getByRole('listitem', { name: `Model ${n}` })
    const save = () => user.click(within(form).getByRole('button', { name: 'Save endpoint' }))
    const saves = () => bridge.calls.filter((c) => c.name === 'settingsSet').length

    await user.click(within(form).getByRole('button', { name: 'Add a model' }))
    await save()
    expect(within(form).getByRole('alert')).toHaveTextContent('Model 3: enter its id, or remove the row.')
    await user.type(within(row(3)).getByLabelText('Model id'), 'm2')
    await save()
    expect(within(form).getByRole('alert')).toHaveTextContent('“m2” is listed twice')
    await user.clear(within(row(3)).getByLabelText('Model id'))
    await user.type(within(row(3)).getByLabelText('Model id'), 'm3')
    await user.type(within(row(3)).getByLabelText('Context window (tokens)'), '65536')
    await user.type(within(row(3)).getByLabelText('Max tokens'), '99999')
    await save()
    expect(within(form).getByRole('alert')).toHaveTextContent('Model 3 (m3): max tokens (99999) cannot exceed the context window (65536).')
    // no window given: the runtime's default one is the limit
    await user.clear(within(row(3)).getByLabelText('Context window (tokens)'))
    await save()
    expect(within(form).getByRole('alert')).toHaveTextContent('Model 3 (m3): max tokens (99999) cannot exceed the context window (32768, the default).')
    await user.type(within(row(3)).getByLabelText('Context window (tokens)'), '65536')
    await user.clear(within(row(3)).getByLabelText('Max tokens'))
    await user.type(within(row(3)).getByLabelText('Max tokens'), '4096')
    await user.type(within(row(2)).getByLabelText('Context window (tokens)'), 'lots')
    await save()
    expect(within(form).getByRole('alert')).toHaveTextContent('Model 2 (m2): the context window must be a whole number ≥ 1024, or empty for the default.')
    expect(saves()).toBe(0)
    await user.clear(within(row(2)).getByLabelText('Context window (tokens)'))
    await user.type(within(row(2)).getByLabelText('Context window (tokens)'), '8192')
    await save()
    await within(dialog).findByText('Saved the endpoint “mock”.')
    expect(lastPatch(bridge)!.patch.models.providers.mock.models).toEqual([
      { id: 'm1', contextWindow: 16384, maxTokens: 2048, reasoning: true },
      { id: 'm2', contextWindow: 8192 },
      { id: 'm3', contextWindow: 65536, maxTokens: 4096 },
    ])
    expect(lastPatch(bridge)!.replacePaths).toEqual(['models.providers.mock.models'])
    expect(within(dialog).getByRole('listitem', { name: 'Endpoint mock' })).toHaveTextContent('m1, m2, m3')

    // a model that is not the default goes at once (the save applies it); the default one asks first
    const form2 = within(dialog).getByRole('group', { name: 'Edit endpoint mock' })
    await user.click(within(form2).getByRole('button', { name: 'Remove model m2' }))
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(within(form2).getAllByLabelText('Model id').map((i) => (i as HTMLInputElement).value)).toEqual(['m1', 'm3'])
    await user.click(within(form2).getByRole('button', { name: 'Remove model m1' }))
    let confirm = screen.getByRole('alertdialog', { name: 'Remove model?' })
    expect(confirm).toHaveTextContent('It is the default model “mock/m1”: runs have no usable default until you pick another one.')
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }))
    expect(within(form2).getAllByLabelText('Model id')).toHaveLength(2)
    await user.click(within(form2).getByRole('button', { name: 'Remove model m1' }))
    confirm = screen.getByRole('alertdialog', { name: 'Remove model?' })
    await user.click(within(confirm).getByRole('button', { name: 'Remove model' }))
    expect(within(form2).getAllByLabelText('Model id').map((i) => (i as HTMLInputElement).value)).toEqual(['m3'])
    await user.click(within(form2).getByRole('button', { name: 'Save endpoint' }))
    await waitFor(() => expect(within(dialog).getByRole('listitem', { name: 'Endpoint mock' })).toHaveTextContent(/· m3$/))
    expect(lastPatch(bridge)!.patch.models.providers.mock.models).toEqual([{ id: 'm3', contextWindow: 65536, maxTokens: 4096 }])
  })

  it("a model's Advanced switches set its compat; what the file says is shown, and kept when other fields change", async () => {
    const user = userEvent.setup()
    const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24 })
    await bridge.settingsSet({
      patch: {
        models: {
          providers: {
            mock: {
              baseUrl: 'http://127.0.0.1:9999/v1',
              api: 'openai-completions',
              models: [{ id: 'm1', contextWindow: 16384, compat: { supportsUsageInStreaming: false } }, { id: 'm2' }],
            },
          },
        },
        agents: { defaults: { model: { primary: 'mock/m1' } } },
      },
    })
    bridge.calls.length = 0
    await renderApp({}, bridge)
    const { dialog, form } = await editEndpoint(user, 'mock')
    const models = within(form).getByRole('list', { name: 'Models' })
    const row = (n: number) => within(models).getByRole('listitem', { name: `Model ${n}` })
    const save = () => user.click(within(form).getByRole('button', { name: 'Save endpoint' }))

    // m1's file says its server refuses stream_options: its Advanced part is open and says so
    const advanced1 = within(row(1)).getByText('Advanced (1 set)').closest('details')!
    expect(advanced1).toHaveAttribute('open')
    expect(within(advanced1).getByRole('checkbox', { name: /Ask for token usage while streaming/ })).not.toBeChecked()
    expect(within(advanced1).getByLabelText('Reply limit field')).toHaveValue('')
    // m2 has none: closed, everything automatic
    const summary2 = within(row(2)).getByText('Advanced')
    expect(summary2).toHaveAccessibleName('Advanced: what the server for m2 does not take')
    expect(summary2.closest('details')).not.toHaveAttribute('open')

    // another field of m1 edited: its compat goes along unchanged
    await user.clear(within(row(1)).getByLabelText('Context window (tokens)'))
    await user.type(within(row(1)).getByLabelText('Context window (tokens)'), '8192')
    await save()
    await within(dialog).findByText('Saved the endpoint “mock”.')
    expect(lastPatch(bridge)!.patch.models.providers.mock.models).toEqual([
      { id: 'm1', contextWindow: 8192, compat: { supportsUsageInStreaming: false } },
      { id: 'm2' },
    ])

    // switches set on m2, and m1's put back to the default: m1's compat goes from the file
    const form2 = within(dialog).getByRole('group', { name: 'Edit endpoint mock' })
    const row2 = (n: number) => within(within(form2).getByRole('list', { name: 'Models' })).getByRole('listitem', { name: `Model ${n}` })
    await user.click(within(row2(2)).getByText('Advanced'))
    await user.selectOptions(within(row2(2)).getByLabelText('Reply limit field'), 'max_tokens')
    await user.selectOptions(within(row2(2)).getByLabelText('Reasoning effort'), 'no')
    await user.click(within(row2(2)).getByRole('checkbox', { name: /Ask for token usage while streaming/ }))
    expect(within(row2(2)).getByText('Advanced (3 set)')).toBeInTheDocument()
    await user.click(within(row2(1)).getByRole('checkbox', { name: /Ask for token usage while streaming/ }))
    // put back, its disclosure stays open where the user is
    expect(within(row2(1)).getByText('Advanced').closest('details')).toHaveAttribute('open')
    await user.click(within(form2).getByRole('button', { name: 'Save endpoint' }))
    await waitFor(() =>
      expect(lastPatch(bridge)!.patch.models.providers.mock.models).toEqual([
        { id: 'm1', contextWindow: 8192 },
        { id: 'm2', compat: { maxTokensField: 'max_tokens', supportsReasoningEffort: false, supportsUsageInStreaming: false } },
      ]),
    )
  })

  it('an Anthropic-compatible endpoint has no Advanced switches (they are OpenAI-compatible ones)', async () => {
    const user = userEvent.setup()
    await renderApp()
    const dialog = await openSettings(user)
    const fresh = within(dialog).getByRole('group', { name: 'New endpoint' })
    expect(within(fresh).getByText('Advanced')).toBeInTheDocument()
    await user.selectOptions(within(fresh).getByLabelText('API'), 'anthropic-messages')
    expect(within(fresh).queryByText('Advanced')).toBeNull()
  })

  it("the default model's id changed in its row: the default follows it in the same save", async () => {
    const user = userEvent.setup()
    const { bridge } = await withMock()
    const { dialog, form } = await editEndpoint(user, 'mock')
    const id = within(form).getAllByLabelText('Model id')[0]
    await user.clear(id)
    await user.type(id, 'm1-large')
    await user.click(within(form).getByRole('button', { name: 'Save endpoint' }))
    await within(dialog).findByText('Saved the endpoint “mock”.')
    expect(lastPatch(bridge)!.patch).toMatchObject({
      models: { providers: { mock: { models: [{ id: 'm1-large', contextWindow: 16384, maxTokens: 2048, reasoning: true }, { id: 'm2' }] } } },
      agents: { defaults: { model: { primary: 'mock/m1-large' } } },
    })
    await waitFor(() => expect(within(dialog).getByLabelText('Default model')).toHaveValue('mock/m1-large'))
  })

  it('renamed together with its default model: one rename call carries both, the default names the new provider and model', async () => {
    const user = userEvent.setup()
    const { bridge } = await withMock()
    const { dialog, form } = await editEndpoint(user, 'mock')
    await user.clear(within(form).getByLabelText('Name'))
    await user.type(within(form).getByLabelText('Name'), 'lab')
    const id = within(form).getAllByLabelText('Model id')[0]
    await user.clear(id)
    await user.type(id, 'm1b')
    await user.click(within(form).getByRole('button', { name: 'Save endpoint' }))
    await within(dialog).findByText('Renamed “mock” to “lab”: its models are lab/… now.')
    const renames = bridge.calls.filter((c) => c.name === 'providerRename')
    expect(renames).toHaveLength(1)
    expect(bridge.calls.filter((c) => c.name === 'settingsSet')).toHaveLength(0)
    expect((renames[0].params as any).patch.agents).toEqual({ defaults: { model: { primary: 'lab/m1b' } } })
    await waitFor(() => expect(within(dialog).getByLabelText('Default model')).toHaveValue('lab/m1b'))
  })

  it('opening another endpoint (or a new one) while the form has unsaved changes asks first', async () => {
    const user = userEvent.setup()
    const { bridge } = await withMock()
    const opened = await editEndpoint(user, 'mock')
    const dialog = opened.dialog
    let form = opened.form
    // nothing changed: Add another endpoint opens at once
    await user.click(within(form).getByRole('button', { name: 'Add another endpoint' }))
    expect(screen.queryByRole('alertdialog')).toBeNull()
    await user.click(within(dialog).getByRole('button', { name: 'Edit mock' }))
    form = within(dialog).getByRole('group', { name: 'Edit endpoint mock' })
    const url = within(form).getByLabelText('Base URL')
    await user.type(url, '/extra')
    await user.click(within(form).getByRole('button', { name: 'Add another endpoint' }))
    let confirm = screen.getByRole('alertdialog', { name: 'Discard unsaved changes?' })
    expect(confirm).toHaveTextContent('The changes to the “mock” endpoint are not saved. Open a new endpoint instead and discard them?')
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }))
    expect(url).toHaveValue('http://127.0.0.1:9999/v1/extra')
    await user.click(within(dialog).getByRole('button', { name: 'Edit mock' }))
    confirm = screen.getByRole('alertdialog', { name: 'Discard unsaved changes?' })
    await user.click(within(confirm).getByRole('button', { name: 'Discard changes' }))
    // the saved values again
    expect(within(within(dialog).getByRole('group', { name: 'Edit endpoint mock' })).getByLabelText('Base URL')).toHaveValue('http://127.0.0.1:9999/v1')
    expect(bridge.calls.filter((c) => c.name === 'settingsSet')).toHaveLength(0)
  })

  it('while the config file has problems a rename is refused in the form (the settings in use still name the provider); other edits save', async () => {
    const user = userEvent.setup()
    const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24, configIssues: [{ path: 'gateway.bind', message: 'must be one of "loopback", "lan", "all"' }] })
    await bridge.settingsSet({ patch: { models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9999/v1', models: [{ id: 'm1' }] } } } } })
    bridge.calls.length = 0
    await renderApp({}, bridge)
    const { dialog, form } = await editEndpoint(user, 'mock')
    await user.clear(within(form).getByLabelText('Name'))
    await user.type(within(form).getByLabelText('Name'), 'lab')
    await user.click(within(form).getByRole('button', { name: 'Save endpoint' }))
    expect(within(form).getByRole('alert')).toHaveTextContent(
      'Fix the config file\'s problems first (listed above): until then the settings in use still name “mock”, so it cannot be renamed.',
    )
    expect(bridge.calls.filter((c) => c.name === 'providerRename')).toHaveLength(0)
    // the runtime refuses it as well
    const r = await bridge.providerRename({ from: 'mock', to: 'lab' })
    expect(!r.ok && r.error.message).toMatch(/^cannot rename “mock” while the config file has problems/)
    await user.clear(within(form).getByLabelText('Name'))
    await user.type(within(form).getByLabelText('Name'), 'mock')
    await user.type(within(form).getAllByLabelText('Context window (tokens)')[0], '65536')
    await user.click(within(form).getByRole('button', { name: 'Save endpoint' }))
    await within(dialog).findByText('Saved the endpoint “mock”.')
    expect(lastPatch(bridge)!.patch.models.providers.mock.models).toEqual([{ id: 'm1', contextWindow: 65536 }])
  })

  it('"Check model setup" after a key error opens Settings at the provider the run used', async () => {
    const user = userEvent.setup()
    const { controller, stores } = await withMock()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'this will error{Enter}')
    const log = screen.getByRole('log', { name: 'Conversation' })
    const button = await within(log).findByRole('button', { name: 'Check model setup' }, LONG)
    // the session's row names the provider its run used: that one, even once the default is another
    await waitFor(() => expect(stores.sessions.getState().rows.find((r) => r.key === 'agent:main:main')?.modelProvider).toBe('mock'))
    await controller.patchConfig({ agents: { defaults: { model: { primary: 'anthropic/claude-sonnet-4-5' } } } })
    await user.click(button)
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    const form = within(dialog).getByRole('group', { name: 'Edit endpoint mock' })
    expect(within(form).getByLabelText('Base URL')).toHaveFocus()
    expect(within(dialog).getByRole('listitem', { name: 'Endpoint mock' })).toHaveClass('editing')
    // a later opening starts plain
    await user.click(within(dialog).getByRole('button', { name: 'Close' }))
    await user.click(screen.getByRole('button', { name: 'Settings' }))
    expect(within(await screen.findByRole('dialog', { name: 'Settings' })).getByRole('group', { name: 'New endpoint' })).toBeInTheDocument()
  })

  it('"Check model setup" for a built-in provider focuses its key field', async () => {
    const user = userEvent.setup()
    await renderApp()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'this will error{Enter}')
    const log = screen.getByRole('log', { name: 'Conversation' })
    await user.click(await within(log).findByRole('button', { name: 'Check model setup' }, LONG))
    expect(within(await screen.findByRole('dialog', { name: 'Settings' })).getByLabelText('Anthropic API key')).toHaveFocus()
  })
})

describe('the default model list', () => {
  const model = (provider: string, id: string, configured: boolean): ModelChoice => ({
    ref: `${provider}/${id}`, provider, id, name: id.toUpperCase(), contextWindow: 8192, maxTokens: 4096, reasoning: false, input: ['text'], configured,
  })

  it('groups usable models by provider and sums up each provider without a key in one line', async () => {
    const user = userEvent.setup()
    await renderApp() // Anthropic has a key; OpenAI and Google do not
    const dialog = await openSettings(user)
    const select = within(dialog).getByLabelText('Default model')
    expect(select).toHaveValue('anthropic/claude-sonnet-4-5')
    const groups = within(select).getAllByRole('group')
    expect(groups.map((g) => g.getAttribute('label'))).toEqual(['Anthropic', 'Not set up'])
    expect(within(groups[0]).getAllByRole('option').map((o) => [o.textContent, (o as HTMLOptionElement).disabled])).toEqual([['Claude Sonnet 4.5', false]])
    expect(within(groups[1]).getAllByRole('option').map((o) => [o.textContent, (o as HTMLOptionElement).disabled])).toEqual([
      ['OpenAI — add a key to use its 1 model', true],
      ['Google — add a key to use its 1 model', true],
    ])
    // a key for OpenAI: its model becomes a choice in its own group, its hint goes
    await user.type(within(dialog).getByLabelText('OpenAI API key'), 'sk-test')
    await user.click(within(dialog).getAllByRole('button', { name: 'Save key' })[1])
    await waitFor(() => expect(within(select).getByRole('group', { name: 'OpenAI' })).toBeInTheDocument())
    expect(within(select).queryByRole('option', { name: /OpenAI — add a key/ })).toBeNull()
    await user.selectOptions(select, 'openai/gpt-5')
    await waitFor(() => expect(select).toHaveValue('openai/gpt-5'))
  })

  it('hundreds of models without a key are a line per provider; the configured default shows even when unusable', () => {
    const models = [
      model('anthropic', 'a1', true),
      model('anthropic', 'a2', true),
      ...Array.from({ length: 40 }, (_, i) => model('openai', `o${i}`, false)),
      ...Array.from({ length: 420 }, (_, i) => model('openrouter', `r${i}`, false)),
      model('mock', 'm1', true),
    ]
    const c = defaultModelChoices(models, 'anthropic/a2')
    expect(c.groups.map((g) => [g.label, g.models.map((m) => m.id)])).toEqual([
      ['Anthropic', ['a1', 'a2']],
      ['mock', ['m1']],
    ])
    expect(c.needKey.map((h) => h.text)).toEqual(['OpenAI — add a key to use its 40 models', 'OpenRouter — add a key to use its 420 models'])
    expect(c.current).toBeUndefined()
    // a default whose key is gone, or whose provider was removed: named, not replaced by the first option
    expect(defaultModelChoices(models, 'openai/o3').current).toEqual({ ref: 'openai/o3', text: 'O3 (OpenAI) — no key' })
    expect(defaultModelChoices(models, 'gone/x').current).toEqual({ ref: 'gone/x', text: 'gone/x — not available' })
  })
})

describe('where keys are stored', () => {
  it('says what the runtime reports: the OS keychain, or the file the headless gateway keeps them in', () => {
    expect(keyStorageNote({ store: 'system' })).toMatch(/system's secure store/)
    expect(keyStorageNote({ store: 'file', path: '/home/u/.loopdesk/credentials.json' })).toBe(
      'Keys are saved in /home/u/.loopdesk/credentials.json, readable only by your user account, and never shown again.',
    )
    // an older runtime that does not say: no claim about a secure store
    expect(keyStorageNote(undefined)).not.toMatch(/secure/)
  })
})

describe('the proxy note', () => {
  it('says which proxy model requests use, and what stays direct', () => {
    expect(proxyNote({ https: 'http://corp:3128', http: 'http://corp:3128', source: { https: 'HTTPS_PROXY', http: 'HTTP_PROXY' } })).toBe(
      'Model requests go through http://corp:3128 (HTTPS_PROXY); local addresses stay direct.',
    )
    expect(proxyNote({ https: 'http://corp:3128', source: { https: 'HTTPS_PROXY' }, noProxy: '.corp.net' })).toBe(
      'Model requests go: https through http://corp:3128 (HTTPS_PROXY), http direct; local addresses and .corp.net stay direct.',
    )
  })
})
