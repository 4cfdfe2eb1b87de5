/** `1,234`: counts as people read them. */
export function countText(value: number): string {
  return value.toLocaleString('en-US')
}

/** `45s`, `4m 05s`, `2h 07m`: a duration rounded up to what a person plans with. */
export function durationText(seconds: number): string {
  const whole = Math.ceil(seconds)
  if (whole < 60) return `${whole}s`
  if (whole < 3600) return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, '0')}s`
  return `${Math.floor(whole / 3600)}h ${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`
}
