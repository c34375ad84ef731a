// Start-up reads of small state files (the token, gateway.json, the CLI's identity and device tokens, paired
// devices, credentials.json, loopdesk.json, prefs.json; an event log recovery reads, a reset transcript) with a FIFO planted under the file's name: each read refuses it at
// once and goes on as with a damaged file. A plain readFileSync waited in open() for a writer — `gateway run`,
// the CLI and the app's start hung for good.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import { tempDir } from '../../../test/fixtures/temp-dir'

const hasMkfifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version']).error === undefined
const src = path.resolve(__dirname, '../..')

/** `call(module)` in a child process (its JSON result), so a read that blocks for good fails the test, not the runner */
function inChild(modRel: string, call: string): { timedOut: boolean; out: unknown; stderr: string } {
  const mod = path.join(src, modRel)
  const script = `import(${JSON.stringify(mod)}).then(async (m) => process.stdout.write(JSON.stringify((await (${call})(m)) ?? null)))`
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { timeout: 15_000, encoding: 'utf8' })
  return { timedOut: r.signal !== null, out: r.stdout ? JSON.parse(r.stdout) : undefined, stderr: r.stderr }
}

function stateWithFifo(rel: string): string {
  const stateDir = tempDir('ld-fifo-')
  fs.mkdirSync(path.dirname(path.join(stateDir, rel)), { recursive: true })
  execFileSync('mkfifo', [path.join(stateDir, rel)])
  return stateDir
}

const cases: Array<{ name: string; file: string; mod: string; call: (s: string) => string; expected: unknown }> = [
  { name: 'the gateway token', file: 'gateway/token', mod: 'main/gateway/state-files.ts', call: (s) => `(m) => m.readGatewayToken(${s})`, expected: null },
  { name: 'gateway.json', file: 'gateway/gateway.json', mod: 'main/gateway/state-files.ts', call: (s) => `(m) => m.readGatewayInfo(${s})`, expected: null },
  {
    name: "the CLI's device tokens",
    file: 'identity/device-tokens.json',
    mod: 'cli/device-token-store.ts',
    call: (s) => `(m) => m.loadDeviceToken(${s}, 'ws://127.0.0.1:1', 'dev')`,
    expected: null,
  },
  {
    name: "the CLI's device identity (replaced, as a damaged one is)",
    file: 'identity/device.json',
    mod: 'cli/identity.ts',
    call: (s) => `(m) => typeof m.loadOrCreateDeviceIdentity(${s}).deviceId`,
    expected: 'string',
  },
  {
    name: "the gateway's paired devices",
    file: 'gateway/devices.json',
    mod: 'main/gateway/paired-devices.ts',
    call: (s) => `(m) => new m.PairedDevices(${s}).isPaired('d', 'k')`,
    expected: false,
  },
  {
    name: 'credentials.json',
    file: 'credentials.json',
    mod: 'main/runtime/config/credential-store.ts',
    call: (s) => `(m) => new m.FileCredentialStore({ stateDir: ${s} }).list()`,
    expected: [],
  },
  {
    name: "loopdesk.json (the runtime's config)",
    file: 'loopdesk.json',
    mod: 'main/runtime/config/config-manager.ts',
    call: (s) => `(m) => new m.ConfigManager({ stateDir: ${s}, env: {} }).load().issues.map((i) => i.message.replace(${s}, 'STATE'))`,
    expected: ['cannot read STATE/loopdesk.json: not a regular file'],
  },
  {
    name: "loopdesk.json (the CLI's gateway section)",
    file: 'loopdesk.json',
    mod: 'cli/resolve.ts',
    call: (s) => `(m) => m.readGatewayConfig(${s}).problem.replace(${s}, 'STATE')`,
    expected: 'cannot read STATE/loopdesk.json (not a regular file)',
  },
  {
    name: 'prefs.json (the headless prefs)',
    file: 'prefs.json',
    mod: 'main/runtime/handlers-system.ts',
    call: (s) => `(m) => m.filePrefs(${s}).get().theme`,
    expected: 'system',
  },
  {
    name: "gateway.json (the runtime's own gateway, for status)",
    file: 'gateway/gateway.json',
    mod: 'main/runtime/handlers-system.ts',
    call: (s) => `(m) => m.ownGateway(${s})`,
    expected: {},
  },
  {
    name: "a session's event log (read by the start's recovery of a cut-off reply)",
    file: 'agents/main/events/sid-1.jsonl',
    mod: 'main/runtime/runner/partial-reply.ts',
    call: (s) => `(m) => m.readPartialReply(${s} + '/agents/main/events/sid-1.jsonl', 'r1')`,
    expected: null,
  },
  {
    name: "a reset transcript (chat.history's messageId anchors from before a reset)",
    file: 'agents/main/sessions/sid-1.jsonl.reset.2026-01-01T00-00-00Z',
    mod: 'main/runtime/sessions/earlier-transcripts.ts',
    call: (s) =>
      `async (m) => { const { SessionStore } = await import(${JSON.stringify(path.join(src, 'main/runtime/sessions/session-store.ts'))}); return m.transcriptOfSession(new SessionStore({ stateDir: ${s}, agentId: 'main' }), 'agent:main:x', 'sid-1') }`,
    expected: null,
  },
]

for (const c of cases) {
  it.skipIf(!hasMkfifo)(`a FIFO as ${c.name} is refused at once, read like a damaged file`, () => {
    const stateDir = stateWithFifo(c.file)
    const r = inChild(c.mod, c.call(JSON.stringify(stateDir)))
    expect(r.timedOut, r.stderr).toBe(false)
    expect(r.out, r.stderr).toEqual(c.expected)
  }, 30_000)
}
