// A one-line preview of markdown text (the sidebar's last message): what a reader sees, without the
// syntax — `**short**` reads "short", a link its text, a list item its words. Not a parser: the
// preview is at most a line, and anything unusual is simply shown as it was written.

const RULES: Array<[RegExp, string]> = [
  [/```[^\n]*\n?/g, ''], // code fence lines (the code inside stays)
  [/!\[([^\]]*)\]\([^)]*\)/g, '$1'], // image → its alt text
  [/\[([^\]]+)\]\([^)]*\)/g, '$1'], // link → its text
  [/^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)/gm, ''], // heading, quote, list markers
  [/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2'], // bold
  [/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\*)/g, '$1$2'], // *italic*
  [/(^|[^\w_])_(?=\S)([^_\n]*?\S)_(?![\w_])/g, '$1$2'], // _italic_ (not snake_case)
  [/~~(?=\S)([\s\S]*?\S)~~/g, '$1'], // strikethrough
  [/`([^`\n]+)`/g, '$1'], // inline code
]

export function plainPreview(text: string): string {
  let out = text
  for (const [re, to] of RULES) out = out.replace(re, to)
  return out.replace(/\s+/g, ' ').trim()
}
