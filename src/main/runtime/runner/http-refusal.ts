// What to do about a model request the server refused, from the status, the server's words and the URL
// the request went to. A 404 from a wrong base URL ("404 page not found", or no body at all) and a 401 from
// a wrong key name no setting; the hint names the one to look at.

/** The last response to a model request (recorded by the runner's fetch). */
export interface SeenResponse {
  url: URL
  status: number
  contentType?: string
}

/** said when a server asked with OpenAI's API answers as Anthropic's does */
export const ANTHROPIC_NOT_OPENAI = "the server wants its key in x-api-key, as Anthropic's API does: set the endpoint's API to anthropic-messages (Anthropic-compatible)"

/** " — …" to append to the error, or '' when there is nothing useful to add. */
export function refusalHint(status: number, detail: string, refused: SeenResponse | undefined, provider?: string, noKeySet?: boolean): string {
  if (status === 401 || status === 403) {
    // Anthropic's API reads its key from x-api-key, not the Bearer header OpenAI's SDK sends
    if (/x-api-key/i.test(detail) && refused && /\/(chat\/completions|responses)$/.test(refused.url.pathname)) return ` — ${ANTHROPIC_NOT_OPENAI}`
    // a 403 can be about something else entirely (the region, the account, a policy): the server's reason,
    // already quoted before the hint, is the message — a key hint there sends the user to the wrong setting
    if (status === 403 && namesOtherCause(detail)) return ''
    const where = `Settings → Models, or \`loopdesk config set models.providers.${provider ?? '<provider>'}.apiKey --stdin\``
    // a server on the local network is asked without a key (a dummy one goes): this one wants a real one
    if (noKeySet) return ` — the server wants an API key, and none is set${provider ? ` for ${provider}` : ''}: add it (${where})`
    return ` — the server did not accept the API key${provider ? ` for ${provider}` : ''}: check it (${where})`
  }
  if (status !== 404 && status !== 405) return ''
  // the server knows the path and says the model is the problem (Ollama, vLLM, OpenAI: "model … not found")
  if (/model/i.test(detail) && /not (found|exist)|does not exist|no such|unknown|pull/i.test(detail)) {
    return ' — the server does not serve this model id: Check in Settings (or `loopdesk models --check`) lists the ones it does'
  }
  if (!refused || refused.status !== status) return ''
  const url = refused.url
  const at = `${url.origin}${url.pathname}`
  const path = url.pathname
  const openai = /\/(chat\/completions|responses)$/.test(path)
  if (openai && !/\/v1\//.test(path)) {
    const base = `${url.origin}${path.replace(/\/(chat\/completions|responses)$/, '')}/v1`
    return ` — nothing is served at ${at}: does the base URL need /v1 (${base})?`
  }
  if (openai) return ` — nothing is served at ${at}: check the base URL, and the API (a server that speaks Anthropic's API needs anthropic-messages)`
  if (/\/v1\/messages$/.test(path)) return ` — nothing is served at ${at}: check the base URL, and the API (an OpenAI-compatible server needs openai-completions)`
  return ` — nothing is served at ${at}: check the base URL`
}

/** words of a refusal about the credentials (a missing, wrong or expired key or token) */
const KEY_WORDS = /\b(api[ _-]?key|key|token|auth\w*|credential\w*|unauthori[sz]ed|bearer|x-api-key|login|sign(ed)? in)\b/i
/** a bare "Forbidden" names no cause: the key is still the likeliest one */
const BARE_REFUSAL = /^(forbidden|access denied|permission denied|not allowed|error)\.?$/i

/** A 403 whose body names its own cause, not the credentials ("not allowed … in your region"). */
export function namesOtherCause(detail: string): boolean {
  const d = detail.trim()
  return d !== '' && !BARE_REFUSAL.test(d) && !KEY_WORDS.test(d)
}

/**
 * A reply that broke off with nothing readable, from a server that answered 200 with something other than
 * a stream (an SSO proxy's HTML login page, a server that ignores `stream: true`): what it sent instead.
 */
export function notAStream(seen: SeenResponse | undefined): string | undefined {
  if (!seen || seen.status < 200 || seen.status > 299 || !seen.contentType) return undefined
  const type = seen.contentType.split(';')[0].trim().toLowerCase()
  if (type === 'text/event-stream') return undefined
  const what = type === 'text/html' ? 'an HTML page' : type === 'application/json' ? 'one JSON reply' : `“${type}”`
  const why =
    type === 'text/html'
      ? 'a web server or login proxy answered, not the model API: check the base URL'
      : 'the server does not stream replies (or something in between buffers them): check the base URL and that the server supports streaming'
  return `The model server sent ${what} instead of a reply stream (${seen.url.origin}${seen.url.pathname}) — ${why}.`
}

/** An HTML page (a reverse proxy's 502, a login page) in place of the API's answer: its title, not the markup. */
export function htmlGist(text: string): string | undefined {
  if (!/^\s*<(!doctype|html|head|body|center|h1)\b/i.test(text)) return undefined
  const title = /<title[^>]*>([^<]*)</i.exec(text)?.[1] ?? /<h1[^>]*>([^<]*)</i.exec(text)?.[1]
  const name = title?.replace(/\s+/g, ' ').trim()
  return `an HTML page${name ? ` (“${name}”)` : ''} — a web server or proxy answered, not the model API`
}
