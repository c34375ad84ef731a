// The environment a model-run command gets. Commands run what the model asks for (after approval or an
// allow-list match), so they must not see the credentials Loopdesk itself runs with: provider API keys,
// the configured providers' key variables, Loopdesk's own tokens, and — by their names — the user's other
// secrets (GITHUB_TOKEN, NPM_TOKEN, AWS_SECRET_ACCESS_KEY, PGPASSWORD, BW_SESSION, …) and URLs that carry a
// password (postgres://user:pass@…). A command the model writes can print or send anything it sees.
// The user lets named variables through with `tools.exec.envPassthrough` (e.g. ["GITHUB_TOKEN", "NPM_*"],
// or ["*"] for everything) — for a `gh` or `npm publish` they do want to run.
//
// What stays (never matched, or kept on purpose): PATH, HOME, USER, SHELL, LANG/LC_*, TERM, TMPDIR, PWD …
// carry no secret. Pointers to local agents and the desktop session — SSH_AUTH_SOCK, GPG_AGENT_INFO,
// DBUS_SESSION_BUS_ADDRESS, SESSION_MANAGER, XDG_SESSION_*, DESKTOP_SESSION … — are kept although their
// names match: they are socket addresses, not secrets (the key never leaves the agent, and a command
// running as the same user could find the socket anyway), and `git push` over ssh, commit signing and
// desktop tools need them. Stripping them would break ordinary commands and protect nothing.
import type { ExecEnvPolicy } from '../contracts'
import { BUILTIN_PROVIDER_ENV } from '../config/secrets'
import { withGitBareRepoGuard } from './git-bare-guard'

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

/** Words that make a variable a secret wherever they appear in its name (PGPASSWORD, CLIENTSECRET, …). */
const SECRET_WORDS = /PASSWORD|PASSWD|PASSPHRASE|PASSCODE|SECRET|CREDENTIAL|PRIVATE|COOKIE|CONNECTION_?STRING/
/**
 * Secret name parts, matched against whole `_`-separated parts so that TOKENIZERS_PARALLELISM,
 * GIT_AUTHOR_NAME or KEYBOARD stay: a part ending in TOKEN(S) or KEY(S) (GITHUB_TOKEN, NPMTOKEN, ACCESSKEY,
 * AWS_ACCESS_KEY_ID), AUTH/OAUTH/AUTHORIZATION (NPM_CONFIG__AUTH, BASIC_AUTH), one ending in SESSION
 * (BW_SESSION, OP_SESSION_<account>: password-manager unlock keys), PAT (GH_PAT), JWT, SALT, WEBHOOK (a webhook
 * URL is itself the credential), and a trailing PWD after a prefix (MYSQL_PWD — but not PWD/OLDPWD).
 */
const SECRET_PART = /^(\w*TOKENS?|\w*KEYS?|O?AUTH\d*|AUTHORIZATION|\w*SESSION|PAT|JWT|SALT|WEBHOOKS?)$/
/**
 * Names that match the patterns above but are addresses or descriptors, not secrets (see the file comment);
 * terminal session ids and less's key-binding file likewise.
 */
const NOT_SECRET =
  /^(SSH_AUTH_SOCK|GPG_AGENT_INFO|DBUS_SESSION_BUS_ADDRESS|SESSION_MANAGER|DESKTOP_SESSION|XDG_SESSION_\w+|KDE_SESSION_\w+|GNOME_DESKTOP_SESSION_ID|TERM_SESSION_ID|ITERM_SESSION_ID|WT_SESSION|LESSKEY\w*)$/
/** A URL with a password in it (scheme://user:password@host): DATABASE_URL, REDIS_URL, proxies with login. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i

/** True when a variable of this name is a secret by its name alone. */
function secretByName(upper: string): boolean {
  if (NOT_SECRET.test(upper)) return false
  if (SECRET_WORDS.test(upper)) return true
  const parts = upper.split('_')
  if (parts.length > 1 && parts[parts.length - 1] === 'PWD') return true
  return parts.some((p) => p !== '' && SECRET_PART.test(p))
}

/**
 * True when exec strips this variable by default: Loopdesk's and the providers' keys, `extra` (the
 * configured providers' apiKeyEnv), a secret-looking name, or (given `value`) a URL holding a password.
 */
export function isSecretEnvName(name: string, extra: ReadonlySet<string> = new Set(), value?: string): boolean {
  const upper = name.toUpperCase()
  if (OWN_SECRET.test(name) || API_KEY.test(name) || KNOWN_SECRETS.has(upper) || extra.has(name)) return true
  if (secretByName(upper)) return true
  return value !== undefined && URL_WITH_PASSWORD.test(value)
}

function passes(name: string, passthrough: readonly string[]): boolean {
  for (const p of passthrough) {
    if (p === '*' || p === name) return true
    if (p.endsWith('*') && name.startsWith(p.slice(0, -1))) return true
  }
  return false
}

/** `base` without secrets (unless passed through), plus the non-interactive and git-safety settings every command gets. */
export function commandEnv(base: NodeJS.ProcessEnv = process.env, policy?: ExecEnvPolicy): NodeJS.ProcessEnv {
  const extra = new Set(policy?.secretNames ?? [])
  const passthrough = policy?.passthrough ?? []
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(base)) {
    if (!isSecretEnvName(k, extra, v) || passes(k, passthrough)) env[k] = v
  }
  // Non-interactive: pagers and credential prompts would otherwise wait for input until the timeout.
  return withGitBareRepoGuard({ ...env, PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' })
}
