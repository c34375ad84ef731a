// Plugin hooks (registry + plugin loader) and internal hooks (command / agent:bootstrap scripts).
export * from './types'
export { HookRegistry, type BeforeToolCallOutcome, type MessageSendingOutcome } from './registry'
export {
  loadPlugins,
  PluginLoadTimeoutError,
  resolvePluginEntry,
  type LoadPluginsOptions,
  type LoadPluginsResult,
  type PluginApi,
  type PluginLoadFailure,
} from './plugins'
export {
  InternalHooks,
  loadInternalHooks,
  isInternalHookKey,
  type BootstrapContext,
  type BootstrapFile,
  type CommandAction,
  type InternalHookEvent,
  type InternalHookHandler,
  type InternalHookType,
  type LoadInternalHooksResult,
} from './internal'
