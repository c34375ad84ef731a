// Saves text as a file the user keeps: a download of a blob (the desktop app's default download handling
// asks where to save it; a browser saves it as it saves downloads).
export function downloadText(filename: string, text: string, type = 'text/markdown;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const a = document.createElement('a')
  a.href = url
  a.download = filename
  a.rel = 'noopener'
  document.body.append(a)
  a.click()
  a.remove()
  // after the click has started the download
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
