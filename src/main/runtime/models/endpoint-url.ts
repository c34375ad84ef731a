// A provider's base URL as users paste it, turned into the one its SDK wants. The SDKs append their own
// path (OpenAI's `/chat/completions` or `/responses`, Anthropic's `/v1/messages`), so a pasted endpoint URL
// or an Anthropic base ending in /v1 asks for `/v1/chat/completions/chat/completions` or `/v1/v1/messages`
// — a bare 404 that never says why.

const ENDPOINT_PATH: Record<string, RegExp> = {
  'openai-completions': /\/chat\/completions$/i,
  'openai-responses': /\/responses$/i,
  'anthropic-messages': /\/messages$/i,
}

/** The base URL the SDK of `api` should get: trimmed, no trailing slash, no endpoint path of its own. */
export function endpointBaseUrl(raw: string, api: string | undefined): string {
  let url = raw.trim()
  // a query (Azure's ?api-version=…) means the user knows this exact URL: leave its path alone
  if (url.includes('?') || url.includes('#')) return url
  url = url.replace(/\/+$/, '')
  const endpoint = api ? ENDPOINT_PATH[api] : undefined
  if (endpoint) url = url.replace(endpoint, '').replace(/\/+$/, '')
  // Anthropic's SDK adds /v1 itself
  if (api === 'anthropic-messages') url = url.replace(/\/v1$/i, '')
  // never strip a URL down to nothing but its scheme
  return /^https?:\/\/[^/]+/i.test(url) ? url : raw.trim()
}
