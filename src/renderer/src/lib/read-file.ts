// Reading picked/pasted/dropped files in the sandboxed renderer (no Node APIs): FileReader only, and only
// when needed — a few header bytes when a file is added, the whole file as base64 when it is sent.

function read<T>(start: (r: FileReader) => void, result: (r: FileReader) => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const r = new FileReader()
    r.onload = () => resolve(result(r))
    r.onerror = () => reject(r.error ?? new Error('the file could not be read'))
    start(r)
  })
}

/** The first `n` bytes (enough to tell an image by its magic number without reading the rest). */
export function readHeader(blob: Blob, n = 16): Promise<Uint8Array> {
  return read(
    (r) => r.readAsArrayBuffer(blob.slice(0, n)),
    (r) => new Uint8Array(r.result as ArrayBuffer),
  )
}

/** The whole blob as base64 (no data-URL prefix), encoded natively by FileReader. */
export function readBase64(blob: Blob): Promise<string> {
  return read(
    (r) => r.readAsDataURL(blob),
    (r) => {
      const url = String(r.result)
      return url.slice(url.indexOf(',') + 1)
    },
  )
}
