// webvtt-parser ships no types; parse-webvtt.ts states the part of its API it uses.
declare module 'webvtt-parser' {
  const exported: unknown
  export default exported
}
