import type {Fps} from '../../plan/fps.js'

export interface PlayerElements {
  play: HTMLButtonElement
  stepBack: HTMLButtonElement
  stepForward: HTMLButtonElement
  scrubber: HTMLInputElement
  time: HTMLOutputElement
  duration: HTMLElement
  frameNumber: HTMLOutputElement
  lastFrame: HTMLElement
}

/**
 * Play, pause, scrub and step through the composition's frames. Every frame shown is a seek of the
 * render runtime; seeks run one at a time and only the latest request waits, so a slow frame drops
 * frames during playback instead of falling behind the clock. `onShown` runs after each seek.
 */
export class Player {
  /** The frame asked for last (what the readouts show). */
  frame = 0
  private fps: Fps = {num: 30, den: 1}
  private totalFrames = 1
  private playing = false
  private playStart = {time: 0, frame: 0}
  private seeking = false
  private pending: number | undefined

  constructor(
    private readonly elements: PlayerElements,
    private readonly seek: (frame: number) => Promise<void>,
    private readonly onShown: (frame: number) => void,
  ) {
    const {play, stepBack, stepForward, scrubber} = elements
    for (const button of [play, stepBack, stepForward]) {
      // Keep focus where it was, so that Space keeps meaning play/pause rather than "press this button again".
      button.addEventListener('mousedown', (event) => event.preventDefault())
    }
    play.addEventListener('click', () => this.toggle())
    stepBack.addEventListener('click', () => this.step(-1))
    stepForward.addEventListener('click', () => this.step(1))
    scrubber.addEventListener('input', () => {
      this.pause()
      this.seekTo(scrubber.valueAsNumber)
    })
    document.addEventListener('keydown', (event) => this.onKey(event))
  }

  get isPlaying(): boolean {
    return this.playing
  }

  setTiming(fps: Fps, totalFrames: number): void {
    this.fps = fps
    this.totalFrames = Math.max(1, totalFrames)
    this.elements.scrubber.max = String(this.totalFrames - 1)
    this.elements.duration.textContent = formatTime(this.totalFrames, fps)
    this.elements.lastFrame.textContent = String(this.totalFrames - 1)
    if (this.frame > this.totalFrames - 1) this.seekTo(this.totalFrames - 1)
    else this.showReadouts()
  }

  seekTo(frame: number): void {
    this.frame = Math.min(this.totalFrames - 1, Math.max(0, Math.round(frame)))
    this.showReadouts()
    this.pending = this.frame
    void this.drain()
  }

  step(delta: number): void {
    this.pause()
    this.seekTo(this.frame + delta)
  }

  toggle(): void {
    if (this.playing) this.pause()
    else this.play()
  }

  play(): void {
    if (this.playing) return
    this.playing = true
    this.elements.play.textContent = 'Pause'
    const from = this.frame >= this.totalFrames - 1 ? 0 : this.frame
    this.playStart = {time: performance.now(), frame: from}
    const tick = (now: number) => {
      if (!this.playing) return
      const elapsedFrames = Math.floor(((now - this.playStart.time) / 1000) * (this.fps.num / this.fps.den))
      const frame = (this.playStart.frame + elapsedFrames) % this.totalFrames
      if (frame !== this.frame) this.seekTo(frame)
      requestAnimationFrame(tick)
    }
    requestAnimationFrame(tick)
  }

  pause(): void {
    if (!this.playing) return
    this.playing = false
    this.elements.play.textContent = 'Play'
  }

  private async drain(): Promise<void> {
    if (this.seeking) return
    this.seeking = true
    try {
      while (this.pending !== undefined) {
        const frame = this.pending
        this.pending = undefined
        await this.seek(frame)
        this.onShown(frame)
      }
    } finally {
      this.seeking = false
    }
  }

  private showReadouts(): void {
    const {scrubber, time, frameNumber} = this.elements
    scrubber.value = String(this.frame)
    time.value = formatTime(this.frame, this.fps)
    frameNumber.value = String(this.frame)
  }

  private onKey(event: KeyboardEvent): void {
    const target = event.target as HTMLElement
    if (event.altKey || event.ctrlKey || event.metaKey) return
    if (target === this.elements.scrubber) {
      // The scrubber moves itself with the arrow keys and Home/End.
      if (event.key === ' ') {
        event.preventDefault()
        this.toggle()
      }
      return
    }
    if (target.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName)) return
    const second = Math.max(1, Math.round(this.fps.num / this.fps.den))
    const actions: Record<string, () => void> = {
      ' ': () => this.toggle(),
      ArrowLeft: () => this.step(event.shiftKey ? -second : -1),
      ArrowRight: () => this.step(event.shiftKey ? second : 1),
      Home: () => this.step(-this.totalFrames),
      End: () => this.step(this.totalFrames),
    }
    const action = actions[event.key]
    if (!action) return
    event.preventDefault()
    action()
  }
}

/** `m:ss.cc` of the start of `frame`. */
export function formatTime(frame: number, fps: Fps): string {
  const centiseconds = Math.floor((frame * fps.den * 100) / fps.num + 1e-9)
  const minutes = Math.floor(centiseconds / 6000)
  const seconds = Math.floor(centiseconds / 100) % 60
  return `${minutes}:${String(seconds).padStart(2, '0')}.${String(centiseconds % 100).padStart(2, '0')}`
}
