import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from './defaults'
import { resolveConfigPath, resolveStateDir } from './state-dir'

describe('resolveStateDir / resolveConfigPath', () => {
  it('uses $LOOPDESK_STATE_DIR, else ~/.loopdesk', () => {
    expect(resolveStateDir({})).toBe(path.join(os.homedir(), '.loopdesk'))
    expect(resolveStateDir({ LOOPDESK_STATE_DIR: '/tmp/x' })).toBe('/tmp/x')
    expect(resolveStateDir({ LOOPDESK_STATE_DIR: '~/y' })).toBe(path.join(os.homedir(), 'y'))
    expect(resolveStateDir({ LOOPDESK_STATE_DIR: '  ' })).toBe(path.join(os.homedir(), '.loopdesk'))
    expect(resolveConfigPath('/s', {})).toBe('/s/loopdesk.json')
    expect(resolveConfigPath('/s', { LOOPDESK_CONFIG_PATH: '/etc/ld.json' })).toBe('/etc/ld.json')
  })
})

describe('resolveConfig', () => {
  it('fills every default', () => {
    const c = resolveConfig({}, '/state')
    expect(c).toEqual({
      raw: {},
      defaultAgentId: 'main',
      agents: [{ id: 'main', workspace: '/state/workspace' }],
      defaults: {
        timeoutSeconds: 600,
        thinkingDefault: 'off',
        verboseDefault: 'off',
        reasoningDefault: 'off',
        workspace: '/state/workspace',
        compaction: { reserveTokens: 16384, keepRecentTurns: 3 },
        blockStreamingDefault: 'off',
        blockStreamingBreak: 'text_end',
        bootstrapMaxChars: 20000,
        maxConcurrent: 4,
        llm: { idleTimeoutSeconds: 120, silenceNoticeSeconds: 20 },
      },
      queue: { mode: 'steer', debounceMs: 500, cap: 20, drop: 'summarize' },
      exec: {
        allowlist: [],
        approvalTimeoutMs: 120000,
        timeoutSeconds: 120,
        maxOutputChars: 100000,
        env: { passthrough: [], secretNames: [] },
      },
      webFetch: { maxBytes: 2_000_000, timeoutMs: 30000, allowLoopback: false, allowPrivateNetwork: false },
      gateway: { port: 18789, bind: 'loopback', allowedOrigins: [] },
      session: { archiveRetentionDays: 30 },
    })
  })

  it('reads the queue as OpenClaw does: the webchat channel\'s entry, then the global one; April\'s debounceMs still works', () => {
    const q = (queue: NonNullable<NonNullable<Parameters<typeof resolveConfig>[0]['messages']>['queue']>) => resolveConfig({ messages: { queue } }, '/state').queue
    expect(q({ mode: 'collect', byChannel: { webchat: 'followup', discord: 'interrupt' } }).mode).toBe('followup')
    expect(q({ mode: 'collect', byChannel: { discord: 'interrupt' } }).mode).toBe('collect')
    expect(q({ debounceMsByChannel: { webchat: 0 }, debounceMs: 900 }).debounceMs).toBe(0)
    expect(q({ debounceMsByChannel: { discord: 50 }, debounceMs: 900 }).debounceMs).toBe(900)
    expect(q({ debounceMsByChannel: { webchat: 1200 } }).debounceMs).toBe(1200)
  })

  it('reads April\'s retired queue modes as OpenClaw 2026.9\'s doctor rewrites them: queue → steer, steer-backlog → followup', () => {
    const q = (queue: NonNullable<NonNullable<Parameters<typeof resolveConfig>[0]['messages']>['queue']>) => resolveConfig({ messages: { queue } }, '/state').queue
    expect(q({ mode: 'steer-backlog' }).mode).toBe('followup')
    expect(q({ mode: 'collect', byChannel: { webchat: 'steer+backlog' } }).mode).toBe('followup')
    expect(q({ mode: 'queue' }).mode).toBe('steer')
  })

  it('collects the configured providers\' key variables as exec secrets and keeps the passthrough list', () => {
    const c = resolveConfig(
      {
        models: { providers: { a: { apiKeyEnv: 'A_CRED' }, b: { apiKeyEnv: 'A_CRED' }, c: { apiKey: 'literal' } } },
        tools: { exec: { envPassthrough: ['GITHUB_TOKEN'] }, webFetch: { allowLoopback: true } },
      },
      '/state',
    )
    expect(c.exec.env).toEqual({ passthrough: ['GITHUB_TOKEN'], secretNames: ['A_CRED'] })
    expect(c.webFetch).toMatchObject({ allowLoopback: true, allowPrivateNetwork: false })
  })

  it('resolves agents, workspaces, models and the gateway token', () => {
    const c = resolveConfig(
      {
        agents: {
          defaults: { model: { primary: 'openai/gpt' }, workspace: 'ws', timeoutSeconds: 0 },
          list: [{ id: 'ops', model: 'anthropic/claude' }, { id: 'main', default: true }, { id: 'x', workspace: '~/xws' }],
        },
        gateway: { port: 0 },
      },
      '/state',
      { LOOPDESK_GATEWAY_TOKEN: 'envtok' },
    )
    expect(c.defaultAgentId).toBe('main')
    expect(c.defaults.workspace).toBe('/state/ws')
    expect(c.defaults.timeoutSeconds).toBe(0)
    expect(c.defaults.model).toBe('openai/gpt')
    expect(c.agents).toEqual([
      { id: 'ops', workspace: '/state/workspace-ops', model: 'anthropic/claude' },
      { id: 'main', workspace: '/state/ws', model: 'openai/gpt' },
      { id: 'x', workspace: path.join(os.homedir(), 'xws'), model: 'openai/gpt' },
    ])
    expect(c.gateway).toEqual({ port: 0, bind: 'loopback', token: 'envtok', allowedOrigins: [] })
    expect(resolveConfig({ gateway: { auth: { token: 'cfg' } } }, '/s', { LOOPDESK_GATEWAY_TOKEN: 'env' }).gateway.token).toBe('cfg')
    expect(resolveConfig({ agents: { list: [{ id: 'solo' }] } }, '/s').defaultAgentId).toBe('solo')
    // 0 switches automatic archive pruning off (it is not "unset")
    expect(resolveConfig({ session: { archiveRetentionDays: 0 } }, '/s').session.archiveRetentionDays).toBe(0)
  })
})
