import { describe, expect, it } from 'vitest'
import { commandEnv, isSecretEnvName } from './exec-env'

const env = (names: string[], value = 'v'): NodeJS.ProcessEnv => Object.fromEntries(names.map((n) => [n, value]))
/** what every command gets: no pager or prompt to wait on, and no bare repository git finds by itself */
const ALWAYS = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'safe.bareRepository',
  GIT_CONFIG_VALUE_0: 'explicit',
}

describe('commandEnv', () => {
  const SECRETS = [
    // provider keys and Loopdesk's own (as before)
    'OPENAI_API_KEY',
    'ANTHROPIC_OAUTH_TOKEN',
    'LOOPDESK_GATEWAY_TOKEN',
    // the user's other credentials, by name
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'NPM_TOKEN',
    'npm_config__authToken',
    'npm_config_//registry.npmjs.org/:_authToken',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_ACCESS_KEY_ID',
    'AWS_SESSION_TOKEN',
    'DB_PASSWORD',
    'PGPASSWORD',
    'MYSQL_PWD',
    'SMTP_PASSWD',
    'GPG_PASSPHRASE',
    'CLIENT_SECRET',
    'JWT_SECRET_KEY',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'AZURE_CREDENTIALS',
    'SSH_PRIVATE_KEY',
    'STRIPE_KEY',
    'MASTERKEY',
    'DOCKER_AUTH_CONFIG',
    'BASIC_AUTH',
    'HTTP_AUTHORIZATION',
    'OAUTH2_REFRESH',
    'SESSION_COOKIE',
    'BW_SESSION',
    'OP_SESSION_my_team',
    'GH_PAT',
    'CI_JOB_JWT',
    'WP_AUTH_SALT',
    'SLACK_WEBHOOK_URL',
    'AZURE_STORAGE_CONNECTION_STRING',
  ]
  const KEPT = [
    'PATH',
    'HOME',
    'USER',
    'SHELL',
    'LANG',
    'LC_ALL',
    'TERM',
    'TMPDIR',
    'PWD',
    'OLDPWD',
    'EDITOR',
    'NODE_OPTIONS',
    'GIT_AUTHOR_NAME',
    'GIT_ASKPASS',
    'TOKENIZERS_PARALLELISM',
    'KEYBOARD_LAYOUT',
    'XAUTHORITY',
    'KUBECONFIG',
    'SSL_CERT_FILE',
    // addresses and session descriptors, kept on purpose (see exec-env.ts)
    'SSH_AUTH_SOCK',
    'GPG_AGENT_INFO',
    'DBUS_SESSION_BUS_ADDRESS',
    'SESSION_MANAGER',
    'DESKTOP_SESSION',
    'XDG_SESSION_TYPE',
    'XDG_SESSION_ID',
    'TERM_SESSION_ID',
    'LESSKEY',
  ]

  it('strips secrets by name — tokens, passwords, secret keys, credentials, auth, cookies, sessions — and keeps the rest', () => {
    const out = commandEnv(env([...SECRETS, ...KEPT]))
    for (const name of SECRETS) expect(out, name).not.toHaveProperty([name])
    for (const name of KEPT) expect(out, name).toHaveProperty([name], 'v')
  })

  it('strips a variable whose value is a URL with a password; a URL without one stays', () => {
    const out = commandEnv({
      DATABASE_URL: 'postgres://app:s3cr3t@db.internal:5432/app',
      HTTPS_PROXY: 'http://me:pw@proxy:3128',
      REDIS_URL: 'redis://:onlypass@cache:6379',
      PLAIN_PROXY: 'http://proxy:3128',
      REPO: 'git+ssh://git@github.com:org/repo.git',
      LOCAL: 'http://[::1]:8080/x',
    })
    expect(Object.keys(out).filter((k) => !(k in ALWAYS)).sort()).toEqual(['LOCAL', 'PLAIN_PROXY', 'REPO'])
  })

  it('tools.exec.envPassthrough keeps named variables, NAME_PREFIX_* groups, or everything with *', () => {
    const base = env(['GITHUB_TOKEN', 'NPM_TOKEN', 'NPM_CONFIG_PASSWORD', 'PGPASSWORD', 'OPENAI_API_KEY', 'PATH'])
    const named = commandEnv(base, { passthrough: ['GITHUB_TOKEN', 'NPM_*'], secretNames: [] })
    expect(Object.keys(named).filter((k) => !(k in ALWAYS)).sort()).toEqual(['GITHUB_TOKEN', 'NPM_CONFIG_PASSWORD', 'NPM_TOKEN', 'PATH'])
    const all = commandEnv(base, { passthrough: ['*'], secretNames: [] })
    for (const k of Object.keys(base)) expect(all).toHaveProperty([k], 'v')
    // a passed-through URL with a password stays too
    expect(commandEnv({ DATABASE_URL: 'postgres://a:b@h/db' }, { passthrough: ['DATABASE_URL'], secretNames: [] })).toHaveProperty('DATABASE_URL')
  })

  it("strips a configured provider's apiKeyEnv whatever its name, and always sets the non-interactive variables", () => {
    const out = commandEnv({ MY_LLM_CRED: 'x', PAGER: 'less' }, { passthrough: [], secretNames: ['MY_LLM_CRED'] })
    expect(out).toEqual(ALWAYS)
  })
})

describe('isSecretEnvName', () => {
  it('matches whole name parts, so words that merely contain TOKEN/KEY/AUTH/SESSION are no secret', () => {
    expect(isSecretEnvName('TOKENIZERS_PARALLELISM')).toBe(false)
    expect(isSecretEnvName('GIT_AUTHOR_EMAIL')).toBe(false)
    expect(isSecretEnvName('KEYBOARD')).toBe(false)
    expect(isSecretEnvName('SESSIONS_DIR')).toBe(false)
    expect(isSecretEnvName('MY_TOKEN')).toBe(true)
    expect(isSecretEnvName('my_token')).toBe(true)
    expect(isSecretEnvName('AUTHTOKEN')).toBe(true)
  })
})
