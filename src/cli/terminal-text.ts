/**
 * Characters that drive a terminal rather than print: C0 controls but tab and newline (ESC starts
 * every sequence that moves the cursor, recolours, retitles the window or writes the clipboard),
 * DEL, the C1 controls (CSI, OSC as single bytes), and the bidirectional overrides that make a
 * line read differently from what it holds.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g
const CONTROL_OR_NEWLINE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

const visible = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`

/**
 * Text for the terminal: user data (a rows file's column names, a cache record's URL, a page's
 * messages) inside it shows its control characters as `\u001b` instead of acting on the terminal.
 * The one escaping function of every place engine prints such text (errors, warnings, listings);
 * `--json` output is JSON and escapes them already. `singleLine` escapes newlines too, for a
 * field on a line of its own.
 */
export function terminalText(text: string, options: {singleLine?: boolean} = {}): string {
  return text.replace(options.singleLine ? CONTROL_OR_NEWLINE : CONTROL, visible)
}
