// Config values the window's forms need as well as the method table's schemas. Kept apart from
// methods.ts so the renderer can use them without bundling the schema library (typebox) with them.

/** a provider name of the user's own: the first half of its model refs ("<provider>/<model>") and a config path segment */
export const PROVIDER_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'

export const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const
export type ThinkingLevel = (typeof THINKING_LEVELS)[number]
