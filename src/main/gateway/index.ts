// Public surface of the gateway for the desktop shell and the CLI.
export { startGateway, DEFAULT_GATEWAY_PORT, DEFAULT_STATIC_DIR, GATEWAY_EVENTS } from './server'
export type { GatewayHandle, StartGatewayOptions, GatewayLogger, GatewayBind } from './server'
export { listenWithFallback, PortInUseError } from './listen'
export {
  ensureGatewayToken,
  readGatewayToken,
  storeGatewayToken,
  readGatewayInfo,
  writeGatewayInfo,
  removeGatewayInfo,
  pidAlive,
  tokenPath,
  infoPath,
} from './state-files'
export type { GatewayInfo } from './state-files'
export { LIMITS, MIN_PROTOCOL, MAX_PROTOCOL } from './protocol'
