// Preload (sandboxed, bundled to CommonJS): exposes the typed Bridge as window.loopdesk and nothing else.
import { contextBridge, ipcRenderer } from 'electron'
import { createIpcBridge } from './ipc-bridge'

contextBridge.exposeInMainWorld('loopdesk', createIpcBridge(ipcRenderer))
