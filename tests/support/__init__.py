"""What several test directories share: rigs (a kiosk or a Visit over the embedded demo backend,
a virtual clock, a faulty transport) and waits (settling a Textual app). Helpers live here, never
in a test module or a conftest another directory imports: importing a test module runs its
module-level code and ties two test files together."""
