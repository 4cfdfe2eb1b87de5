/**
 * A webhook URL as it may be shown in logs, manifests and progress: a password or token in it
 * (`https://user:secret@…`, `?token=…`) is replaced by `***`, the host and path kept.
 */
export function redactUrl(url: string): string {
  if (!URL.canParse(url)) return url
  const parsed = new URL(url)
  if (parsed.username) parsed.username = '***'
  if (parsed.password) parsed.password = '***'
  for (const key of [...new Set(parsed.searchParams.keys())]) parsed.searchParams.set(key, '***')
  return parsed.href.replace(/%2A%2A%2A/g, '***')
}
