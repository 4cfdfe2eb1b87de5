export type CheckStatus = 'ok' | 'missing' | 'warning'

/** One line of `engine doctor`: what was checked, what was found, and how to fix it. */
export interface DoctorCheck {
  name: 'javascript runtime' | 'ffmpeg' | 'ffprobe' | 'browser' | 'container runtime' | 'fonts' | 'plugins'
  status: CheckStatus
  /** A missing required dependency makes doctor exit non-zero. */
  required: boolean
  summary: string
  fix?: string
  info: Record<string, unknown>
}

export interface DoctorReport {
  ok: boolean
  checks: DoctorCheck[]
}

export function doctorReport(checks: DoctorCheck[]): DoctorReport {
  return {ok: checks.every((check) => !check.required || check.status !== 'missing'), checks}
}
