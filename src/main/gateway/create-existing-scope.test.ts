// sessions.create with the key of an existing session changes its settings only for a caller with the scope
// sessions.patch needs (operator.admin); a write-scoped client still creates new sessions with them, and may
// repeat the values a session already has. Its first message `/model <ref>` needs admin as chat.send's does.
// Over the real runtime and gateway, with real WebSocket clients.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'

const TOKEN = 'create-scope-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const admin = generateNodeDeviceIdentity()
const writer = generateNodeDeviceIdentity()
const WRITE = ['operator.read', 'operator.write']

const connect = (identity = admin, extra: { scopes?: string[]; maxProtocol?: number } = {}) =>
  connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, ...extra })
type Row = { key: string; modelOverride?: string; permissionMode?: string; thinkingLevel?: string; fastMode?: boolean; label?: string }
const rowOf = async (c: Awaited<ReturnType<typeof connect>>, key: string) =>
  ((await c.request('sessions.list', {})) as { sessions: Row[] }).sessions.find((s) => s.key === key)

describe('sessions.create on an existing key', () => {
  it('a writer cannot change an existing session’s settings (missing scope, nothing written); an admin can', async () => {
    const a = await connect(admin)
    const w = await connect(writer, { scopes: WRITE })
    const key = 'agent:main:create-existing'
    await a.request('sessions.create', { key, label: 'locked', thinkingLevel: 'low' })
    await a.request('sessions.patch', { key, permissionMode: 'read-only', model: 'mock/m1' })
    await expect(w.request('sessions.patch', { key, permissionMode: 'guarded' })).rejects.toMatchObject({ code: 'FORBIDDEN' })
    const before = await rowOf(w, key)

    for (const change of [
      { permissionMode: 'guarded' },
      { model: 'mockant/c1' },
      { thinkingLevel: 'high' },
      { fastMode: true },
      { label: 'renamed' },
    ]) {
      await expect(w.request('sessions.create', { key, ...change }), JSON.stringify(change)).rejects.toMatchObject({
        code: 'FORBIDDEN',
        message: 'missing scope: operator.admin',
        details: { code: 'MISSING_SCOPE', missingScope: 'operator.admin', requiredScopes: ['operator.admin'] },
      })
    }
    expect(await rowOf(w, key)).toEqual(before)

    // the values it already has, or no settings at all: the session as it is
    expect(await w.request('sessions.create', { key, permissionMode: 'read-only', model: 'mock/m1', label: 'locked', thinkingLevel: 'low' })).toMatchObject({ ok: true, key })
    expect(await w.request('sessions.create', { key })).toMatchObject({ ok: true, key })
    expect(await rowOf(w, key)).toMatchObject({ permissionMode: 'read-only', modelOverride: 'mock/m1', label: 'locked' })

    // a v3 client gets the same refusal as INVALID_REQUEST (it knows no FORBIDDEN)
    const w3 = await connect(writer, { scopes: WRITE, maxProtocol: 3 })
    await expect(w3.request('sessions.create', { key, permissionMode: 'guarded' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'missing scope: operator.admin',
    })

    // admin: sessions.patch's scope, so it may
    await a.request('sessions.create', { key, permissionMode: 'guarded', model: 'mockant/c1' })
    expect(await rowOf(a, key)).toMatchObject({ permissionMode: 'guarded', modelOverride: 'mockant/c1' })
    await Promise.all([a.close(), w.close(), w3.close()])
  })

  it('a writer still creates a new session with settings', async () => {
    const w = await connect(writer, { scopes: WRITE })
    const key = 'agent:main:create-new-by-writer'
    await w.request('sessions.create', { key, permissionMode: 'read-only', model: 'mockant/c1', thinkingLevel: 'high', fastMode: true, label: 'mine' })
    expect(await rowOf(w, key)).toMatchObject({ permissionMode: 'read-only', modelOverride: 'mockant/c1', thinkingLevel: 'high', fastMode: true, label: 'mine' })
    await w.close()
  })

  it('a first message /model <ref> needs admin (as chat.send); a bare /model does not', async () => {
    const a = await connect(admin)
    const w = await connect(writer, { scopes: WRITE })
    const key = 'agent:main:create-model-cmd'
    await a.request('sessions.create', { key })
    for (const first of [{ message: '/model mockant/c1' }, { task: '/model mockant/c1' }, { message: '\u0001/model mockant/c1' }]) {
      await expect(w.request('sessions.create', { key, ...first }), JSON.stringify(first)).rejects.toMatchObject({
        message: '/model <model> requires admin scope (it is what sessions.patch does)',
      })
    }
    expect((await rowOf(w, key))?.modelOverride).toBeUndefined()
    expect(await w.request('sessions.create', { key, message: '/model' })).toMatchObject({ ok: true })
    expect(await a.request('sessions.create', { key, message: '/model mockant/c1' })).toMatchObject({ ok: true })
    expect((await rowOf(a, key))?.modelOverride).toBe('mockant/c1')
    await Promise.all([a.close(), w.close()])
  })
})
