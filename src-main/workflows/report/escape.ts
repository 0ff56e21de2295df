/**
 * Escaping for strings that come from files (model names, launch commands, log lines):
 * whatever they hold, they must not break a Markdown table or inject HTML.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/**
 * Inline Markdown text (a table cell, a list item, a heading): backslash-escape everything
 * that could start markup, including `|` (table cells); `<`, `>` and `&` become entities, so
 * no raw HTML (and no `<script`) ever appears in the text. Line breaks are folded, since they
 * would end a table row. Underscores inside words are left alone (GFM never emphasises them)
 * so names like Qwen2_5 stay readable as plain text.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\r\n|\r|\n/g, ' ')
    .replace(/[\\`*[\]|~]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/(^|\W)_|_(?=\W|$)/g, (m) => m.replace('_', '\\_'));
}

/** Text that starts a line of its own (a paragraph): also keep it from becoming a heading or list. */
export function escapeMarkdownLine(text: string): string {
  return escapeMarkdown(text)
    .replace(/^([#+\-=>])/, '\\$1')
    .replace(/^(\d+)([.)])/, '$1\\$2');
}

/** Undo escapeMarkdown's backslashes (for reading tables back). */
export function unescapeMarkdown(text: string): string {
  return text
    .replace(/\\([\\`*_[\]<>|&~#+\-=!.)])/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** A fenced code block that the content cannot close early, whatever backticks it holds. */
export function codeBlock(content: string): string {
  const longest = Math.max(2, ...Array.from(content.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${content}\n${fence}`;
}
