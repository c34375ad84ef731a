import type { CredentialStore, LoopdeskConfig } from '../contracts'

/** Environment variables pi-ai reads for its built-in providers (subset shown in secretsStatus). */
export const BUILTIN_PROVIDER_ENV: Record<string, string[]> = {
  anthropic: ['ANTHROPIC_API_KEY', 'ANTHROPIC_OAUTH_TOKEN'],
  openai: ['OPENAI_API_KEY'],
  google: ['GEMINI_API_KEY'],
  openrouter: ['OPENROUTER_API_KEY'],
  groq: ['GROQ_API_KEY'],
  mistral: ['MISTRAL_API_KEY'],
  xai: ['XAI_API_KEY'],
  deepseek: ['DEEPSEEK_API_KEY'],
}

/** Only says whether a secret is available — never its value, length or source. */
export function secretsStatus(
  raw: LoopdeskConfig,
  env: NodeJS.ProcessEnv,
  credentials: CredentialStore | undefined,
  gatewayToken: string | undefined,
): Record<string, 'set' | 'not set'> {
  const out: Record<string, 'set' | 'not set'> = {}
  const has = (v: string | undefined) => typeof v === 'string' && v.trim() !== ''
  const providers = raw.models?.providers ?? {}
  const ids = new Set([...Object.keys(BUILTIN_PROVIDER_ENV), ...Object.keys(providers), ...(credentials?.list() ?? [])])
  for (const id of ids) {
    const p = providers[id]
    const set =
      has(p?.apiKey) ||
      (p?.apiKeyEnv !== undefined && has(env[p.apiKeyEnv])) ||
      !!credentials?.has(id) ||
      (BUILTIN_PROVIDER_ENV[id] ?? []).some((name) => has(env[name]))
    out[id] = set ? 'set' : 'not set'
  }
  out['gateway.auth.token'] = has(gatewayToken) ? 'set' : 'not set'
  return out
}
