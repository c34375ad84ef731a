// `loopdesk agent` with no model set up (a fresh state dir): the runtime's "no model configured: set
// agents.defaults.model.primary …" names a config key but not how to get there. Said as `loopdesk models`
// says it — the app's Settings, an API key variable, or a local server through `loopdesk config set`.
export const NO_MODEL_HELP =
  'no model configured — set one up in the Loopdesk app (Settings → Models), or set an API key variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, …) where the gateway runs and `loopdesk config set agents.defaults.model.primary openai/<model>`;\n' +
  `  for a local server: \`loopdesk config set models.providers.local '{"baseUrl":"http://127.0.0.1:11434/v1","models":[{"id":"<model>"}]}'\` and \`loopdesk config set agents.defaults.model.primary local/<model>\` (see: loopdesk models --all)`

// --local runs with no gateway, and `config set` goes through one: say how to get there from here
export const NO_MODEL_HELP_LOCAL =
  NO_MODEL_HELP +
  '\n  (`loopdesk config set` goes through a gateway: start one with `loopdesk gateway run`, or edit loopdesk.json in the state dir, or the file LOOPDESK_CONFIG_PATH names, while none runs)'

