/**
 * Escaping for strings that come from files (model names, launch commands, log lines):
 * whatever they hold, they must not break a Markdown table or inject HTML.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** `<` that could open an HTML tag, comment or autolink: a letter, `/`, `!` or `?` after it. */
const TAG_START = /<[A-Za-z/!?]/;
/** `&` that would read as an entity: `&amp;`, `&#39;`. */
const ENTITY = /&(?=#?[A-Za-z0-9]+;)/g;

/**
 * Inline Markdown text (a table cell, a list item, a heading): backslash-escape everything
 * that could start markup, including `|` (table cells). Where the text holds something that
 * could open a tag, its `<`, `>` and `&` become entities, so no raw HTML (and no `<script`,
 * even escaped) ever appears; elsewhere they stay as written ("3,211 ms > 2,000 ms"), since an
 * entity reads badly in a Markdown file, and only an `&` that would start an entity is
 * backslash-escaped. Line breaks are folded, since they would end a table row. Underscores
 * inside words are left alone (GFM never emphasises them) so names like Qwen2_5 stay readable.
 */
export function escapeMarkdown(text: string): string {
  const flat = text.replace(/\r\n|\r|\n/g, ' ');
  const escaped = flat.replace(/[\\`*[\]|~]/g, (c) => `\\${c}`);
  const safe = TAG_START.test(flat)
    ? escaped.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    : escaped.replace(ENTITY, '\\&');
  return safe.replace(/(^|\W)_|_(?=\W|$)/g, (m) => m.replace('_', '\\_'));
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
