import {spawn} from 'node:child_process'

/** The platform's "open this URL with the default application" command. */
export function openCommand(url: string, platform: NodeJS.Platform = process.platform): {command: string; args: string[]} {
  if (platform === 'darwin') return {command: 'open', args: [url]}
  // `start` is a cmd built-in; its first quoted argument is the window title.
  if (platform === 'win32') return {command: 'cmd', args: ['/c', 'start', '""', url.replace(/&/g, '^&')]}
  return {command: 'xdg-open', args: [url]}
}

/** Opens `url` in the default browser. Resolves false (never throws) when the opener cannot start. */
export function openInBrowser(url: string): Promise<boolean> {
  const {command, args} = openCommand(url)
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, {detached: true, stdio: 'ignore'})
      child.once('error', () => resolve(false))
      child.once('spawn', () => {
        child.unref()
        resolve(true)
      })
    } catch {
      resolve(false)
    }
  })
}
