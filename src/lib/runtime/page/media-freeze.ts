/**
 * Keeps `<video>` and `<audio>` from playing on the wall clock: a playing element would show a
 * different frame on every machine. Sound is mixed offline from the sources, not captured here.
 * Live collections make the per-seek check a walk over the media elements only.
 */
export class MediaFreeze {
  private readonly videos: HTMLCollectionOf<HTMLVideoElement>
  private readonly audios: HTMLCollectionOf<HTMLAudioElement>

  constructor(doc: Document) {
    this.videos = doc.getElementsByTagName('video')
    this.audios = doc.getElementsByTagName('audio')
  }

  apply(): void {
    for (const collection of [this.videos, this.audios]) {
      for (const element of collection) {
        element.muted = true
        if (!element.paused) element.pause()
      }
    }
  }
}
