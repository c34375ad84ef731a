import { describe, expect, it } from 'vitest'
import { newSessionId, isValidSessionId } from './paths'
import { sessionKind, toSessionRow } from './session-row'

describe('toSessionRow', () => {
  it('fills zero defaults; idle has no status (OpenClaw enum)', () => {
    expect(toSessionRow('agent:main:main', { sessionId: 's', updatedAt: 5, status: 'idle' }, 'main')).toEqual({
      key: 'agent:main:main',
      kind: 'direct',
      sessionId: 's',
      agentId: 'main',
      updatedAt: 5,
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      estimatedCostUsd: 0,
      compactionCount: 0,
      // OpenClaw rows always say whether a session is archived, pinned, unread
      archived: false,
      pinned: false,
      unread: false,
    })
  })
  it('projects organisation fields; a run after the last read makes it unread; an expired note is gone', () => {
    const base = { sessionId: 's', updatedAt: 5, lifecycleRevision: 'rev-1' }
    const row = toSessionRow(
      'agent:main:x',
      { ...base, archivedAt: 10, icon: '🚀', color: 'blue', category: 'Work', lastReadAt: 20, endedAt: 30, agentStatus: { note: 'waiting', expiresAt: 100, attention: 'hand' } },
      'main',
      50,
    )
    expect(row).toMatchObject({
      lifecycleRevision: 'rev-1',
      archived: true,
      archivedAt: 10,
      pinned: false,
      unread: true,
      lastReadAt: 20,
      icon: '🚀',
      color: 'blue',
      category: 'Work',
      agentStatus: { note: 'waiting', expiresAt: 100, attention: 'hand' },
    })
    const later = toSessionRow('agent:main:x', { ...base, pinnedAt: 7, lastReadAt: 40, endedAt: 30, agentStatus: { note: 'waiting', expiresAt: 100 } }, 'main', 100)
    expect(later).toMatchObject({ pinned: true, pinnedAt: 7, unread: false })
    expect(later).not.toHaveProperty('agentStatus')
    expect(toSessionRow('agent:main:x', { ...base, markedUnreadAt: 3 }, 'main')).toMatchObject({ unread: true, markedUnreadAt: 3 })
  })
  it('copies known fields, not internal ones', () => {
    const row = toSessionRow(
      'agent:main:x',
      {
        sessionId: 's',
        updatedAt: 5,
        status: 'running',
        activeRunId: 'r1',
        label: 'L',
        model: 'openai/gpt',
        inputTokens: 3,
        outputTokens: 4,
        estimatedCostUsd: 0.5,
        lastError: 'e',
        systemPromptReport: { builtAt: 1, chars: 1, sections: [], bootstrapFiles: [], skills: [] },
      },
      'main',
    )
    expect(row).toMatchObject({ status: 'running', activeRunId: 'r1', label: 'L', model: 'openai/gpt', totalTokens: 7, estimatedCostUsd: 0.5, lastError: 'e' })
    expect(row).not.toHaveProperty('systemPromptReport')
  })
})

describe('row queueMode', () => {
  it('shows a stored alias or retired name as its mode, and no mode for an unknown name', () => {
    const base = { sessionId: 's', updatedAt: 5 }
    expect(toSessionRow('agent:main:q', { ...base, queueMode: 'steer-backlog' }, 'main').queueMode).toBe('followup')
    expect(toSessionRow('agent:main:q', { ...base, queueMode: 'queue' }, 'main').queueMode).toBe('steer')
    expect(toSessionRow('agent:main:q', { ...base, queueMode: 'later' }, 'main')).not.toHaveProperty('queueMode')
  })
})

describe('row status and kind', () => {
  it('reports an interrupted run as failed + interrupted, other states as they are', () => {
    const row = toSessionRow('agent:main:x', { sessionId: 's', updatedAt: 1, status: 'interrupted', lastError: 'app exited' }, 'main')
    expect(row).toMatchObject({ status: 'failed', interrupted: true, lastError: 'app exited' })
    for (const status of ['running', 'done', 'failed', 'killed', 'timeout'] as const) {
      const r = toSessionRow('agent:main:x', { sessionId: 's', updatedAt: 1, status }, 'main')
      expect(r.status).toBe(status)
      expect(r).not.toHaveProperty('interrupted')
    }
  })
  it('classifies keys', () => {
    expect(sessionKind('agent:main:main')).toBe('direct')
    expect(sessionKind('agent:main:chat-1234')).toBe('direct')
    expect(sessionKind('agent:main:telegram:group:42')).toBe('group')
    expect(sessionKind('agent:main:global')).toBe('global')
    expect(sessionKind('garbage')).toBe('unknown')
  })
})

describe('newSessionId', () => {
  it('is a valid, unique uuid', () => {
    const a = newSessionId()
    expect(a).toMatch(/^[0-9a-f-]{36}$/)
    expect(isValidSessionId(a)).toBe(true)
    expect(newSessionId()).not.toBe(a)
  })
})
