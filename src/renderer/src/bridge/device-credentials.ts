// Browser mode: the page's device identity and the device token the gateway issued to it survive a
// reload, so a page whose `#token=` went stale (the shared token was rotated) still gets in.
// - The private key is a non-extractable WebCrypto key kept in IndexedDB (structured clone keeps it
//   non-extractable: page script can sign with it but never read it).
// - The device token lives in sessionStorage, like the shared token: this tab only, gone when it closes.
// One identity per tab (the tab id is in sessionStorage): the gateway re-issues a device's token on
// every connect with the shared token, so two tabs sharing one identity would invalidate each other.
import type { WebDeviceIdentity } from '../../../shared/device-identity'
import type { CredentialStore } from './ws-bridge'

const DB_NAME = 'loopdesk'
const STORE = 'device-identities'
const TAB_KEY = 'loopdesk.tabId'
const DEVICE_TOKEN_KEY = 'loopdesk.deviceToken'
/** identities of tabs not seen for this long are deleted */
const KEEP_MS = 30 * 24 * 3600_000

interface Saved {
  identity: WebDeviceIdentity
  savedAt: number
}

function tabId(): string {
  let id = sessionStorage.getItem(TAB_KEY)
  if (!id) {
    id = crypto.randomUUID()
    sessionStorage.setItem(TAB_KEY, id)
  }
  return id
}

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1)
    req.onupgradeneeded = () => req.result.createObjectStore(STORE)
    req.onsuccess = () => resolve(req.result)
    req.onerror = () => reject(req.error ?? new Error('IndexedDB unavailable'))
  })
}

function done<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result)
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'))
  })
}

async function withStore<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => Promise<T>): Promise<T> {
  const db = await openDb()
  try {
    return await fn(db.transaction(STORE, mode).objectStore(STORE))
  } finally {
    db.close()
  }
}

/** The browser's store; undefined where IndexedDB or sessionStorage is missing (no persistence). */
export function browserCredentialStore(): CredentialStore | undefined {
  if (typeof indexedDB === 'undefined' || typeof sessionStorage === 'undefined') return undefined
  return {
    async load() {
      const id = tabId()
      const saved = await withStore('readonly', (s) => done(s.get(id) as IDBRequest<Saved | undefined>))
      if (!saved?.identity) return {}
      return { identity: saved.identity, deviceToken: sessionStorage.getItem(DEVICE_TOKEN_KEY) ?? undefined }
    },
    async saveIdentity(identity) {
      const id = tabId()
      sessionStorage.removeItem(DEVICE_TOKEN_KEY) // a token belongs to the identity it was issued to
      await withStore('readwrite', async (s) => {
        const now = Date.now()
        await done(s.put({ identity, savedAt: now } satisfies Saved, id))
        const keys = await done(s.getAllKeys())
        for (const key of keys) {
          if (key === id) continue
          const other = (await done(s.get(key))) as Saved | undefined
          if (!other || now - other.savedAt > KEEP_MS) await done(s.delete(key))
        }
      })
    },
    saveDeviceToken(token) {
      try {
        if (token) sessionStorage.setItem(DEVICE_TOKEN_KEY, token)
        else sessionStorage.removeItem(DEVICE_TOKEN_KEY)
      } catch {
        // storage full or blocked: the token then lasts as long as this page
      }
    },
  }
}
