// A server that refuses a request for its context size, when the model's window in Loopdesk is set
// larger than the server's (a custom endpoint without `contextWindow` gets 32k; llama.cpp or vLLM may
// serve 4k): compaction never starts in time, and the error alone does not say that the setting is what
// to change. The servers' own wordings give their window:
//   vLLM / OpenAI: "This model's maximum context length is 4096 tokens …"
//   llama.cpp:     "request (5000 tokens) exceeds the available context size (4096 tokens) …"
//   LM Studio:     "… the model is loaded with context length of only 4096 tokens …"

const WINDOW_SAID = [/maximum context length is (\d+)/i, /available context size \((\d+) tokens?\)/i, /context length of only (\d+)/i]

/** " — …" naming the setting to change, or '' when the server's window is not smaller than the one set. */
export function contextMismatchHint(error: string, model: { contextWindow: number }, ref: string): string {
  const said = WINDOW_SAID.map((re) => re.exec(error)?.[1]).find(Boolean)
  const window = said ? Number(said) : NaN
  if (!Number.isFinite(window) || window <= 0 || window >= model.contextWindow) return ''
  const [provider] = ref.split('/')
  return (
    ` — the server's context window is ${window} tokens, but ${ref} is set to ${model.contextWindow}: set its context window to ${window}` +
    ` (Settings → Models, the “${provider}” endpoint's model row) and its max tokens well below that`
  )
}
