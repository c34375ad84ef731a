// hello-ok as a v3 (OpenClaw April) client reads it: its HelloOk schema is closed, `features` holds only
// methods and events, and `auth` — when there at all — must carry a deviceToken. Checked with ajv against the
// package's v4 HelloOk narrowed to v3 (reference §1.4 step 7), over real sockets.
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import Ajv from 'ajv'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startTestGateway, type TestGateway } from './test-support'

const schemaFile = fileURLToPath(new URL('../../../node_modules/@openclaw/gateway-protocol/protocol.schema.json', import.meta.url))
const protocol = JSON.parse(fs.readFileSync(schemaFile, 'utf8')) as { definitions: Record<string, any> }

/** v4's HelloOk with v3's differences: auth optional (and with a token), no capabilities, no v4 policy fields */
function v3HelloOk() {
  const s = structuredClone(protocol.definitions.HelloOk)
  s.required = s.required.filter((k: string) => k !== 'auth')
  delete s.properties.features.properties.capabilities
  s.properties.auth.required = ['deviceToken', 'role', 'scopes']
  for (const k of ['recoveryMigrationAllowed', 'recoveryScope', 'deviceTokens']) delete s.properties.auth.properties[k]
  for (const k of ['attachments', 'allowedSessionVisibilities', 'hasMultipleSessionSharingIdentities']) delete s.properties.policy.properties[k]
  delete s.properties.pluginSurfaceUrls
  return s
}
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(protocol, 'openclaw')
const checkV3 = ajv.compile({ ...v3HelloOk(), definitions: protocol.definitions })
const fitsV3 = (hello: unknown) => (checkV3(hello) ? [] : checkV3.errors)

let t: TestGateway
beforeEach(async () => {
  t = await startTestGateway()
})
afterEach(async () => {
  await t.stop()
})

describe('hello-ok on protocol 3', () => {
  it('a device-less client gets no auth block (v3 requires a deviceToken in it) and no capabilities', async () => {
    const conn = await t.connect({ identity: null, maxProtocol: 3 })
    expect(conn.hello.protocol).toBe(3)
    expect(conn.hello).not.toHaveProperty('auth')
    expect(Object.keys(conn.hello.features).sort()).toEqual(['events', 'methods'])
    expect(fitsV3(conn.hello)).toEqual([])
    await conn.close()
  })

  it('a verified device gets its device token in auth, and the hello fits v3', async () => {
    const conn = await t.connect({ maxProtocol: 3, scopes: ['operator.read'] })
    expect(conn.hello.auth).toMatchObject({ role: 'operator', scopes: ['operator.read'] })
    expect(typeof conn.hello.auth.deviceToken).toBe('string')
    expect(fitsV3(conn.hello)).toEqual([])
    await conn.close()
  })

  it('v4 keeps auth (always) and capabilities', async () => {
    const conn = await t.connect({ identity: null })
    expect(conn.hello.protocol).toBe(4)
    expect(conn.hello.auth).toEqual({ role: 'operator', scopes: [] })
    expect(conn.hello.features.capabilities).toEqual(['chat-send-routing-contract'])
    await conn.close()
  })
})
