import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { APP_NAME, appUserDataDir } from './app-user-data'

describe('appUserDataDir', () => {
  it('uses the name Electron gives the app (package.json productName, else name)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')) as { name: string; productName?: string }
    expect(APP_NAME).toBe(pkg.productName ?? pkg.name)
  })

  it('Linux: $XDG_CONFIG_HOME/<name>, else ~/.config/<name>', () => {
    expect(appUserDataDir({ HOME: '/home/u', XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe('/xdg/loopdesk')
    expect(appUserDataDir({ HOME: '/home/u' }, 'linux')).toBe('/home/u/.config/loopdesk')
    expect(appUserDataDir({ HOME: '/home/u', XDG_CONFIG_HOME: '  ' }, 'linux')).toBe('/home/u/.config/loopdesk')
  })

  it('macOS: ~/Library/Application Support/<name>', () => {
    expect(appUserDataDir({ HOME: '/Users/u', XDG_CONFIG_HOME: '/xdg' }, 'darwin')).toBe('/Users/u/Library/Application Support/loopdesk')
  })

  it('Windows: %APPDATA%\\<name>, else %USERPROFILE%\\AppData\\Roaming\\<name>', () => {
    expect(appUserDataDir({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toBe('C:\\Users\\u\\AppData\\Roaming\\loopdesk')
    expect(appUserDataDir({ USERPROFILE: 'C:\\Users\\u' }, 'win32')).toBe('C:\\Users\\u\\AppData\\Roaming\\loopdesk')
  })

  it('LOOPDESK_USER_DATA_DIR wins, as in the shell', () => {
    expect(appUserDataDir({ HOME: '/home/u', LOOPDESK_USER_DATA_DIR: '/profiles/p1' }, 'linux')).toBe('/profiles/p1')
  })
})
