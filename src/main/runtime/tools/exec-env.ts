// The environment a model-run command gets. Commands run what the model asks for (after approval or an
// allow-list match), so they must not see the credentials Loopdesk itself runs with: provider API keys,
// the configured providers' key variables and Loopdesk's own tokens. The user can let named variables
// through with `tools.exec.envPassthrough` (e.g. ["GITHUB_TOKEN", "NPM_*"], or ["*"] for everything).
import type { ExecEnvPolicy } from '../contracts'
import { BUILTIN_PROVIDER_ENV } from '../config/secrets'

/** Loopdesk's own credentials (gateway token etc.). */
const OWN_SECRET = /^LOOPDESK_.*(TOKEN|KEY|SECRET|PASSWORD)/i
/** Any `*_API_KEY` / `*_APIKEY`: how nearly every model provider (and most other services) name their keys. */
const API_KEY = /(^|_)API_?KEY$/i
/** Provider credentials pi-ai reads that do not end in _API_KEY. */
const KNOWN_SECRETS = new Set([
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_OAUTH_TOKEN',
  'COPILOT_GITHUB_TOKEN',
  'HF_TOKEN',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
  ...Object.values(BUILTIN_PROVIDER_ENV).flat(),
])

/** True when `name` is a credential exec strips by default. */
export function isSecretEnvName(name: string, extra: ReadonlySet<string> = new Set()): boolean {
  return OWN_SECRET.test(name) || API_KEY.test(name) || KNOWN_SECRETS.has(name.toUpperCase()) || extra.has(name)
}

function passes(name: string, passthrough: readonly string[]): boolean {
  for (const p of passthrough) {
    if (p === '*' || p === name) return true
    if (p.endsWith('*') && name.startsWith(p.slice(0, -1))) return true
  }
  return false
}

/** `base` without secrets (unless passed through), plus the non-interactive settings every command gets. */
export function commandEnv(base: NodeJS.ProcessEnv = process.env, policy?: ExecEnvPolicy): NodeJS.ProcessEnv {
  const extra = new Set(policy?.secretNames ?? [])
  const passthrough = policy?.passthrough ?? []
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(base)) {
    if (!isSecretEnvName(k, extra) || passes(k, passthrough)) env[k] = v
  }
  // Non-interactive: pagers and credential prompts would otherwise wait for input until the timeout.
  return { ...env, PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' }
}
