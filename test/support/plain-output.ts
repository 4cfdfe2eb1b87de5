// CI machines set CI (or FORCE_COLOR, or a colour TERM), and the colour libraries of oclif and its
// plugins then print ANSI codes into piped output. Every engine process a test starts inherits this
// environment, so its output is plain text as on a user's pipe, whatever machine runs the suite.
delete process.env.FORCE_COLOR
process.env.NO_COLOR = '1'
