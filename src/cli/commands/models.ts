// `loopdesk models`: which models the gateway can run (and which lack a key), the default marked; --check
// asks each configured endpoint for its model list (loopdesk.models.probe), as the settings' Check does,
// and exits non-zero when one fails — a quick "why does nothing answer" from the terminal.
import type { ResultOf } from '../../shared/methods'
import { parseArgs, TARGET_FLAGS, UsageError } from '../args'
import { withGateway } from '../connect'
import type { GatewayConnectionClient } from '../gateway-client'
import { EXIT, type CliIO } from '../io'
import { commandTarget } from '../resolve'
import { tableLines } from '../table'

export const MODELS_HELP = `loopdesk models [--check] [--all] [--json] [--url ws://…] [--token T] [--state-dir D]
  Lists the models the gateway can run (* = the default); --all also lists built-in ones without a key.
  --check asks each configured endpoint (models.providers with a baseUrl) for its model list and says
  whether it answers and serves the configured models, and checks each built-in provider's key (OpenAI,
  Anthropic, …) at its own API; exits 1 when one fails.`

const FLAGS = {
  check: { type: 'boolean' },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  ...TARGET_FLAGS,
} as const

type Probe = ResultOf<'loopdesk.models.probe'>
interface EndpointCheck {
  provider: string
  /** a built-in provider's key, checked at its own API (not an endpoint of the config) */
  builtin?: boolean
  result: Probe
  /** configured model ids the endpoint does not serve (a typo, or a model not pulled yet): runs would fail */
  missing: string[]
}

const kTokens = (n: number) => (n >= 1000 ? `${Math.round(n / 1000)}k` : String(n))

/** Probes each configured endpoint (models.providers with a baseUrl), then each built-in provider with a key. */
async function checkEndpoints(conn: GatewayConnectionClient, models: ResultOf<'models.list'>['models']): Promise<EndpointCheck[]> {
  const cfg = (await conn.request('config.get', {})) as ResultOf<'config.get'>
  const providers = (cfg.config as { models?: { providers?: Record<string, { baseUrl?: unknown; models?: Array<{ id?: unknown }> }> } }).models?.providers ?? {}
  const ids = Object.entries(providers)
    .filter(([, p]) => typeof p?.baseUrl === 'string')
    .map(([id]) => id)
  const builtins = [...new Set(models.filter((m) => m.configured && !ids.includes(m.provider)).map((m) => m.provider))]
  return Promise.all([
    ...ids.map(async (provider) => {
      const result = (await conn.request('loopdesk.models.probe', { provider })) as Probe
      const configured = (providers[provider].models ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string')
      const missing = result.ok && result.models.length ? configured.filter((id) => !result.models.some((m) => m.id === id)) : []
      return { provider, result, missing }
    }),
    ...builtins.map(async (provider) => {
      const result = (await conn.request('loopdesk.models.probe', { provider })) as Probe
      return { provider, builtin: true, result, missing: [] }
    }),
  ])
}

function checkText({ provider, builtin, result: r, missing }: EndpointCheck): string {
  if (!r.ok) return `\n✗ ${provider}${builtin ? ' key' : ''}: ${r.error}\n  (${r.url})\n`
  const n = r.models.length
  if (builtin) return `\n✓ ${provider}: the key works — ${n} model${n === 1 ? '' : 's'} at ${r.url} (${r.ms} ms)\n`
  const ids = n ? `: ${r.models.slice(0, 8).map((m) => m.id).join(', ')}${n > 8 ? ', …' : ''}` : ''
  return (
    `\n${missing.length || r.suggestedBaseUrl ? '!' : '✓'} ${provider}: ${r.url} answers — ${n} model${n === 1 ? '' : 's'} (${r.ms} ms)${ids}\n` +
    (r.suggestedBaseUrl ? `  its base URL should be ${r.suggestedBaseUrl}\n` : '') +
    missing.map((id) => `  configured but not served: ${id} (runs with ${provider}/${id} will fail)\n`).join('')
  )
}

/**
 * A model's STATUS: "ready" only when --check found its endpoint answering and serving it — a key or an
 * endpoint in the config says nothing about whether the server is up ("configured (not checked)").
 */
function modelStatus(m: ResultOf<'models.list'>['models'][number], check: EndpointCheck | undefined): string {
  if (!m.configured) return 'no key'
  if (!check) return 'configured (not checked)'
  if (!check.result.ok) return check.builtin ? 'key refused' : 'not answering'
  return check.missing.some((id) => `${check.provider}/${id}` === m.ref) ? 'not served' : 'ready'
}

export async function modelsCommand(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(MODELS_HELP + '\n')
    return EXIT.ok
  }
  if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`)
  const { stateDir, target } = commandTarget(flags, io.env)
  const { models, defaultModel, checks } = await withGateway({ target, stateDir, io }, async (conn) => {
    const list = (await conn.request('models.list', {})) as ResultOf<'models.list'>
    return { ...list, checks: flags.check ? await checkEndpoints(conn, list.models) : [] }
  })
  const shown = flags.all ? models : models.filter((m) => m.configured)
  if (flags.json) {
    io.stdout(JSON.stringify({ defaultModel, models: shown, ...(flags.check ? { checks } : {}) }) + '\n')
  } else {
    if (!shown.length) {
      io.stdout(
        flags.all ? 'no models\n' : 'no model has a key yet — add one in Settings, set e.g. OPENAI_API_KEY, or configure a local endpoint (see --all)\n',
      )
    } else {
      const byProvider = new Map(checks.map((c) => [c.provider, c]))
      const rows = shown.map((m) => [m.ref === defaultModel ? `* ${m.ref}` : `  ${m.ref}`, m.name, kTokens(m.contextWindow), modelStatus(m, byProvider.get(m.provider))])
      io.stdout(tableLines(['  MODEL', 'NAME', 'CONTEXT', 'STATUS'], rows).join('\n') + '\n')
    }
    if (flags.check) {
      if (!checks.length) io.stdout('\nnothing to check: no endpoints configured (models.providers with a baseUrl) and no provider keys\n')
      for (const c of checks) io.stdout(checkText(c))
    }
  }
  return checks.some((c) => !c.result.ok || c.result.suggestedBaseUrl || c.missing.length) ? EXIT.failed : EXIT.ok
}
