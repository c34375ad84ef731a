// `loopdesk devices`: the devices that connected with an identity, and removing one. In-process CLI against
// the real runtime + gateway; each CLI state dir is its own device.
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { connectGateway } from './gateway-client'
import { generateNodeDeviceIdentity } from './identity'

const TOKEN = 'devices-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN)

const cli = (args: string[], stateDir: string) => runCliCaptured([...args, '--url', env.stack.gw.url, '--state-dir', stateDir], { LOOPDESK_GATEWAY_TOKEN: TOKEN })

describe('loopdesk devices', () => {
  it('lists the devices (this one connected now), removes one by a prefix of its id', async () => {
    const me = tempDir('loopdesk-cli-devices-me-')
    const other = tempDir('loopdesk-cli-devices-other-')
    expect((await cli(['status'], other)).code).toBe(0) // another device connects once
    const before = JSON.parse((await cli(['devices', '--json'], me)).out).paired as Array<{ deviceId: string; connected: boolean; tokens: unknown[] }>
    expect(before.length).toBeGreaterThanOrEqual(2)
    const self = before.find((d) => d.connected)!
    const otherId = before.find((d) => !d.connected)!.deviceId

    const table = await cli(['devices'], me)
    expect(table.code).toBe(0)
    const lines = table.out.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ {2}DEVICE\s+CLIENT\s+PAIRED\s+LAST SEEN\s+TOKENS$/)
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\* ${self.deviceId.slice(0, 16)}\\s+cli\\s+.*\\s+now\\s+operator \\(`)))

    const removed = await cli(['devices', 'remove', otherId.slice(0, 12)], me)
    expect(removed.out).toBe(`removed ${otherId}: its device tokens no longer work\n`)
    expect(removed.code).toBe(0)
    const after = JSON.parse((await cli(['devices', '--json'], me)).out).paired as Array<{ deviceId: string }>
    expect(after.map((d) => d.deviceId)).not.toContain(otherId)

    const again = await cli(['devices', 'remove', otherId], me)
    expect(again.code).toBe(1)
    expect(again.err).toContain('is not paired')
  })

  it('lists a remote device waiting to be paired; approve lets it connect, reject refuses it for a while', async () => {
    const me = tempDir('loopdesk-cli-devices-pairer-')
    const proxied = { 'X-Forwarded-For': '198.51.100.4' }
    const phone = generateNodeDeviceIdentity()
    const ask = () => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity: phone, headers: proxied })
    const refused = await ask().catch((e) => e)
    const requestId = refused.details.requestId as string

    const table = await cli(['devices'], me)
    expect(table.out).toMatch(new RegExp(`^Waiting for approval \\(loopdesk devices approve <requestId>\\):\nREQUEST\\s+DEVICE\\s+CLIENT\\s+FROM\\s+ASKED\n${requestId}\\s+${phone.deviceId.slice(0, 16)}\\s+cli \\(`))
    expect(JSON.parse((await cli(['devices', '--json'], me)).out).pending).toEqual([expect.objectContaining({ requestId, deviceId: phone.deviceId })])

    expect(await cli(['devices', 'reject', requestId], me)).toMatchObject({ code: 0, out: `rejected ${phone.deviceId}: it is refused for 10 min, then it may ask again\n` })
    expect(await cli(['devices', 'approve', requestId], me)).toMatchObject({ code: 1, err: expect.stringContaining('unknown pairing request') })
    // asking again meanwhile is refused without a request: nothing waits in the list
    const again = await ask().catch((e) => e)
    expect(again.details).toMatchObject({ code: 'PAIRING_REQUIRED', reason: 'rejected' })
    expect(again.details.requestId).toBeUndefined()
    expect((await cli(['devices'], me)).out).not.toContain('Waiting for approval')
    expect(JSON.parse((await cli(['devices', '--json'], me)).out).pending).toEqual([])

    const tablet = generateNodeDeviceIdentity()
    const askTablet = () => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity: tablet, headers: proxied })
    const second = (await askTablet().catch((e) => e)).details.requestId as string
    expect(await cli(['devices', 'approve', second], me)).toMatchObject({ code: 0, out: `approved ${tablet.deviceId}: it can connect now\n` })
    const conn = await askTablet()
    expect(conn.hello?.type).toBe('hello-ok')
    await conn.close()
  })

  it('lists a rejected device with how long it waits and how to lift it; remove lifts the rejection, the device asks again now', async () => {
    const me = tempDir('loopdesk-cli-devices-lift-')
    const proxied = { 'X-Forwarded-For': '198.51.100.5' }
    const phone = generateNodeDeviceIdentity()
    const ask = () => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity: phone, headers: proxied })
    const requestId = (await ask().catch((e) => e)).details.requestId as string
    const short = phone.deviceId.slice(0, 16)
    // (the gateway is shared with the other tests: other devices may be listed too)
    const rejectedRows = (out: string) => out.split('\n\n').find((s) => s.startsWith('Rejected')) ?? ''
    expect(rejectedRows((await cli(['devices'], me)).out)).not.toContain(short)
    expect((await cli(['devices', 'reject', requestId], me)).code).toBe(0)

    const table = await cli(['devices'], me)
    expect(table.code).toBe(0)
    const section = rejectedRows(table.out).split('\n')
    expect(section[0]).toBe('Rejected (asks again in N min; loopdesk devices remove <deviceId> lets it ask now):')
    expect(section[1]).toMatch(/^DEVICE\s+CLIENT\s+FROM\s+REJECTED\s+ASKS AGAIN IN$/)
    expect(section).toContainEqual(expect.stringMatching(new RegExp(`^${short}\\s+cli \\(.*\\)\\s+127\\.0\\.0\\.1\\s+just now\\s+10 min$`)))
    expect(table.out).not.toContain(requestId)
    expect(JSON.parse((await cli(['devices', '--json'], me)).out).loopdeskRejected).toContainEqual(expect.objectContaining({ deviceId: phone.deviceId, untilMs: expect.any(Number) }))

    // a prefix of a rejected (never paired) device's id names it
    const lifted = await cli(['devices', 'remove', phone.deviceId.slice(0, 12)], me)
    expect(lifted).toMatchObject({ code: 0, out: `lifted the rejection of ${phone.deviceId}: it may ask to pair again now\n` })
    expect(rejectedRows((await cli(['devices'], me)).out)).not.toContain(short)
    const again = await ask().catch((e) => e)
    expect(again.details).toMatchObject({ code: 'PAIRING_REQUIRED', requestId: expect.any(String) })
    expect(again.details.reason).toBeUndefined()
    expect((await cli(['devices'], me)).out).toContain(`${again.details.requestId as string}`)
  })

  it('remove of a device that only asks to pair drops its request and says so (exit 0); afterwards it is "not paired" (exit 1)', async () => {
    const me = tempDir('loopdesk-cli-devices-drop-')
    const phone = generateNodeDeviceIdentity()
    const ask = () => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity: phone, headers: { 'X-Forwarded-For': '198.51.100.6' } })
    const requestId = (await ask().catch((e) => e)).details.requestId as string
    expect((await cli(['devices'], me)).out).toContain(requestId)

    // a prefix of a waiting device's id names it too
    const dropped = await cli(['devices', 'remove', phone.deviceId.slice(0, 12)], me)
    expect(dropped).toMatchObject({ code: 0, out: `dropped the pairing request ${requestId} of ${phone.deviceId}: not approved (it may ask again)\n` })
    expect((await cli(['devices'], me)).out).not.toContain(requestId)
    expect(JSON.parse((await cli(['devices', '--json'], me)).out).loopdeskRejected).not.toContainEqual(expect.objectContaining({ deviceId: phone.deviceId }))
    // nothing left: neither paired nor waiting nor rejected
    expect(await cli(['devices', 'remove', phone.deviceId], me)).toMatchObject({ code: 1, err: expect.stringContaining('is not paired') })

    // --json is the gateway's answer, which names the request
    const second = (await ask().catch((e) => e)).details.requestId as string
    const json = await cli(['devices', 'remove', phone.deviceId, '--json'], me)
    expect(JSON.parse(json.out)).toEqual({ ok: true, deviceId: phone.deviceId, removed: true, loopdeskRequestDropped: second })
  })

  it('refuses what is not a devices command', async () => {
    const dir = tempDir('loopdesk-cli-devices-usage-')
    expect((await cli(['devices', 'frob'], dir)).code).toBe(2)
    expect((await cli(['devices', 'remove'], dir)).code).toBe(2)
    expect((await cli(['devices', 'approve'], dir)).code).toBe(2)
    expect((await cli(['devices', 'list', 'x'], dir)).code).toBe(2)
  })
})
