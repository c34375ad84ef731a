export { createModelRegistry, envRefName, LOCAL_DUMMY_KEY, SUPPORTED_CUSTOM_APIS } from './registry'
export type { ModelRegistry, ModelRegistryOptions } from './registry'
