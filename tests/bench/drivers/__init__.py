"""Programs the benchmarks run in a pseudo-terminal (tests/bench/pty_run.py), one process each."""
