import { describe, expect, it } from 'vitest'
import { knownIssues, validateConfig } from './validate'

const full = {
  $schema: './schema.json',
  models: {
    providers: {
      local: {
        baseUrl: 'http://127.0.0.1:8080/v1',
        api: 'openai-completions',
        apiKeyEnv: 'LOCAL_KEY',
        headers: { 'x-a': 'b' },
        models: [{ id: 'm1', name: 'M1', contextWindow: 128000, maxTokens: 4096, reasoning: true, input: ['text', 'image'], cost: { input: 1, output: 2 } }],
      },
      anthropic: { apiKey: 'sk-ant' },
    },
  },
  agents: {
    defaults: {
      model: { primary: 'local/m1' },
      thinkingDefault: 'low',
      verboseDefault: 'on',
      reasoningDefault: 'stream',
      timeoutSeconds: 0,
      workspace: '~/ws',
      compaction: { reserveTokens: 1000, keepRecentTurns: 2 },
      blockStreamingDefault: 'on',
      blockStreamingBreak: 'message_end',
      bootstrapMaxChars: 100,
      maxConcurrent: 2,
    },
    list: [{ id: 'main', default: true }, { id: 'ops', workspace: '/tmp/ops', model: 'anthropic/claude' }],
  },
  gateway: { port: 0, bind: 'lan', auth: { token: 't' }, allowedOrigins: ['http://localhost:5173'] },
  messages: { queue: { mode: 'steer', byChannel: { webchat: 'collect', discord: 'followup' }, debounceMsByChannel: { webchat: 1000 }, debounceMs: 0, cap: 5, drop: 'old' } },
  tools: {
    exec: { allowlist: ['git status*'], approvalTimeoutMs: 0, timeoutSeconds: 5, maxOutputChars: 10, envPassthrough: ['GITHUB_TOKEN', 'NPM_*', '*'] },
    webFetch: { maxBytes: 1, timeoutMs: 1, allowLoopback: true, allowPrivateNetwork: false },
  },
  hooks: { internal: { enabled: false }, timeoutMs: 5000 },
  plugins: { enabled: true, disabled: ['x'] },
  session: { archiveRetentionDays: 30 },
}

describe('validateConfig', () => {
  it('accepts an empty and a complete config', () => {
    expect(validateConfig({})).toEqual([])
    expect(validateConfig(full)).toEqual([])
  })

  it('knownIssues adds the consistency problems the schema errors hide, and survives shapes it cannot walk', () => {
    const dup = { gateway: { port: -1 }, agents: { list: [{ id: 'a' }, { id: 'a' }] } }
    expect(validateConfig(dup).map((i) => i.path)).toEqual(['gateway.port'])
    expect(knownIssues(dup).map((i) => i.path)).toEqual(['gateway.port', 'agents.list[1].id'])
    expect(knownIssues({ agents: { list: 5 } })).toEqual([{ path: 'agents.list', message: 'must be an array' }])
    expect(knownIssues({})).toEqual([])
  })

  it('a model entry needs only its id (contextWindow and maxTokens have defaults)', () => {
    expect(validateConfig({ models: { providers: { local: { baseUrl: 'http://127.0.0.1:11434/v1', models: [{ id: 'llama3.1' }, { id: 'q', contextWindow: 8192 }] } } } })).toEqual([])
  })

  it('names each bad path with a readable message', () => {
    const issues = validateConfig({
      agents: {
        defaults: { timeoutSeconds: -1, thinkingDefault: 'max', maxConcurrent: 1.5, workspace: '' },
        list: [{ id: 'Bad Id' }, { workspace: '/x' }],
      },
      gateway: { port: 70000, bind: 'everywhere', auth: { token: 5 } },
      models: { providers: { p: { baseUrl: 'ftp://x', models: [{ id: 'm', contextWindow: 'big', maxTokens: 1 }] } } },
      tools: { exec: { allowlist: 'ls', envPassthrough: ['$(rm -rf ~)'] }, webFetch: { allowLoopback: 'yes' } },
      hooks: { internal: { enabled: 'yes' } },
      session: { archiveRetentionDays: -1 },
    })
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'agents.defaults.timeoutSeconds', message: 'must be integer >= 0' },
        { path: 'agents.defaults.thinkingDefault', message: 'must be one of "off", "minimal", "low", "medium", "high", "xhigh"' },
        { path: 'agents.defaults.maxConcurrent', message: 'must be integer between 1 and 256' },
        { path: 'agents.defaults.workspace', message: 'must be a non-empty string' },
        { path: 'agents.list[0].id', message: 'must be a lowercase agent id ([a-z0-9_-], max 64)' },
        { path: 'agents.list[1].id', message: 'is required' },
        { path: 'gateway.port', message: 'must be integer between 0 and 65535' },
        { path: 'gateway.bind', message: 'must be one of "loopback", "lan", "all"' },
        { path: 'gateway.auth.token', message: 'must be a non-empty string' },
        { path: 'models.providers.p.baseUrl', message: 'must be an http:// or https:// URL' },
        { path: 'models.providers.p.models[0].contextWindow', message: 'must be integer >= 1' },
        { path: 'tools.exec.allowlist', message: 'must be an array' },
        { path: 'tools.exec.envPassthrough[0]', message: 'must be a variable name, NAME_PREFIX_* or *' },
        { path: 'tools.webFetch.allowLoopback', message: 'must be true or false' },
        { path: 'hooks.internal.enabled', message: 'must be true or false' },
        { path: 'session.archiveRetentionDays', message: 'must be integer between 0 and 36500' },
      ]),
    )
    expect(issues).toHaveLength(16)
  })

  it('checks OpenClaw\'s per-channel queue entries', () => {
    expect(validateConfig({ messages: { queue: { byChannel: { webchat: 'later' } } } }).map((i) => i.path)).toEqual(['messages.queue.byChannel.webchat'])
    // April's retired modes are taken (read as steer / followup); OpenClaw's directive aliases are not config values
    expect(validateConfig({ messages: { queue: { mode: 'steer-backlog', byChannel: { webchat: 'queue', x: 'steer+backlog' } } } })).toEqual([])
    expect(validateConfig({ messages: { queue: { mode: 'coalesce' } } }).map((i) => i.path)).toEqual(['messages.queue.mode'])
    expect(validateConfig({ messages: { queue: { debounceMsByChannel: { webchat: -1 } } } }).map((i) => i.path)).toEqual(['messages.queue.debounceMsByChannel.webchat'])
  })

  it('reports unknown keys, with a hint for near misses', () => {
    expect(validateConfig({ agent: {}, gateway: { prot: 1 }, zzz: 1 })).toEqual([
      { path: 'agent', message: 'unknown key (did you mean "agents"?)' },
      { path: 'gateway.prot', message: 'unknown key (did you mean "port"?)' },
      { path: 'zzz', message: 'unknown key' },
    ])
  })

  it('checks model refs and non-objects', () => {
    expect(validateConfig({ agents: { defaults: { model: { primary: 'gpt-4o' } } } })).toEqual([
      { path: 'agents.defaults.model.primary', message: 'must be "<provider>/<model>" (e.g. "openai/gpt-4o")' },
    ])
    expect(validateConfig([])).toEqual([{ path: '', message: 'must be an object ({ ... })' }])
    expect(validateConfig('x')).toHaveLength(1)
    expect(validateConfig({ agents: [] })).toEqual([{ path: 'agents', message: 'must be an object' }])
  })

  it('checks rules a schema cannot express', () => {
    expect(
      validateConfig({
        agents: { list: [{ id: 'a', default: true }, { id: 'a', default: true }] },
        models: { providers: { p: { apiKey: 'k', apiKeyEnv: 'K', models: [{ id: 'm', contextWindow: 1, maxTokens: 1 }, { id: 'm', contextWindow: 1, maxTokens: 1 }] } } },
      }),
    ).toEqual([
      { path: 'agents.list[1].id', message: 'duplicate agent id "a"' },
      { path: 'agents.list', message: 'only one agent may have "default": true' },
      { path: 'models.providers.p', message: 'set either apiKey or apiKeyEnv, not both' },
      { path: 'models.providers.p.models[1].id', message: 'duplicate model id "m"' },
    ])
  })
})
