// A command's output as text for the model and the tool card: what a terminal would show, not its control
// bytes. Colour and cursor escapes are dropped, a carriage return overwrites its line (progress bars leave
// their last state), and other control characters (NUL from binary output, bells, …) are removed and
// counted, so 3,000 NULs become one note instead of 3,000 boxes in the card and the transcript.

// CSI (colours, cursor moves), OSC (titles, links; ended by BEL or ESC \), and two-byte escapes
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]/g
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g

/**
 * What a line with carriage returns shows: each column holds the character of the last part that reached it.
 * Built from the last part backwards, so each character is copied once — rebuilding the line at every '\r'
 * was quadratic (100 kB of "\rb" after a long line: half a second of the main thread per output update,
 * 20 s at 200 kB).
 */
function overwrite(line: string): string {
  const parts = line.split('\r')
  let shown = parts[parts.length - 1]
  for (let i = parts.length - 2; i >= 0; i--) if (parts[i].length > shown.length) shown += parts[i].slice(shown.length)
  return shown
}

export function terminalText(raw: string): string {
  if (!/[\u0000-\u0008\u000b-\u001f\u007f]/.test(raw)) return raw // the common case: plain text
  let removed = 0
  let text = raw
    .replace(ESCAPES, '')
    .replace(/\r\n/g, '\n')
    .replace(CONTROLS, () => (removed++, ''))
  // a carriage return goes back to the line's start and what follows overwrites it ("50%\r100%" shows "100%")
  if (text.includes('\r')) text = text.split('\n').map(overwrite).join('\n')
  if (removed === 0) return text
  const note = `[${removed} control character${removed === 1 ? '' : 's'} removed (binary output?)]`
  return text.trim() ? `${text}${text.endsWith('\n') ? '' : '\n'}${note}` : note
}
