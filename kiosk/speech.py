"""Speech (issue 34): a command started once, to which each utterance is written as one line.

The kiosk never waits for speech: `CommandSpeaker.say` puts the line in a small queue and returns;
a thread writes it to the command's standard input. A line still in the queue when a newer one
comes is dropped (a screen reader's habit: what the customer moved past is not said any more);
what the command does with a line it already has depends on the command:

- `spd-say --pipe-mode` (speech-dispatcher's client, the default where it is installed): each line
  is a message of priority "text", which speech-dispatcher speaks at once, cancelling the text
  message it was speaking (SSIP's "text interrupts itself"). Rate, voice and output module are
  spd-say's own options (`-r`, `-y`, `-o`) and speech-dispatcher's configuration.
- `espeak-ng` reading its standard input (the fallback where it is the one installed) speaks
  each line in turn: nothing it already has is cancelled. Rate and voice: `-s`, `-v`.
- any other command: the lines are written to it; what it does with them is its own business
  (a remote counter's own player, a braille bridge, a test's recorder).

`{language}` in the command is replaced by the customer's language ("en", "es"); the command is
started again when it changes (at most once a customer). A command that exits is started again
up to `MAX_RESTARTS` times, then speech stops with one line in the log.

No Textual here: the TUI's `kiosk.tui.spoken` decides what is said and when.
"""

from __future__ import annotations

import logging
import shlex
import shutil
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol

log = logging.getLogger("kiosk.speech")

# The default commands, in the order they are looked for on PATH.
SPD_SAY = "spd-say --pipe-mode --priority text --language {language}"
ESPEAK_NG = "espeak-ng -v {language}"
DEFAULT_COMMANDS = (("spd-say", SPD_SAY), ("espeak-ng", ESPEAK_NG))

# Utterances waiting for the writer; older ones are dropped first (each is a whole screen's words
# at most, so a few are plenty).
QUEUE_SIZE = 8
MAX_RESTARTS = 5
# One utterance is one line: a longer one is cut (a command reads lines of any length, but a
# screen of words is already more than anyone listens to).
MAX_CHARS = 2000


class Speaker(Protocol):
    """What the TUI speaks through."""

    def say(self, text: str, *, keep: bool = False) -> None:
        """Speak `text` (one line) later, without waiting. `keep`: not replaced by a newer
        utterance before it is written (an order number)."""

    def set_language(self, code: str) -> None: ...

    def close(self) -> None: ...


def one_line(text: str) -> str:
    """`text` as one line: whitespace (newlines included) folded to single spaces, bounded."""
    return " ".join(text.split())[:MAX_CHARS]


def default_command(which: Callable[[str], str | None] = shutil.which) -> str | None:
    """The default command for this machine: spd-say in pipe mode, else espeak-ng; None when
    neither is installed."""
    for program, command in DEFAULT_COMMANDS:
        if which(program):
            return command
    return None


def command_for(setting: str | None, which: Callable[[str], str | None] = shutil.which) -> str:
    """The command line speech uses: the `speech_command` setting, else the default (spd-say's
    line, named even where it is missing, so that the error says what to install)."""
    if setting:
        return setting
    return default_command(which) or SPD_SAY


def argv_for(command: str, language: str) -> list[str]:
    """The command's argv with `{language}` filled in."""
    return [part.replace("{language}", language) for part in shlex.split(command)]


class MemorySpeaker:
    """Keeps every utterance in order, in this process (tests; `kiosk doctor` has no use for it):
    the utterance stream as the command would get it."""

    def __init__(self) -> None:
        self.heard: list[str] = []
        self.language = "en"

    def say(self, text: str, *, keep: bool = False) -> None:
        line = one_line(text)
        if line:
            self.heard.append(line)

    def set_language(self, code: str) -> None:
        self.language = code

    def close(self) -> None:
        pass


class CommandSpeaker:
    """Writes each utterance as one line to a command started once (see the module docstring).

    `popen` is injected by tests. The thread starts with the first utterance, so a kiosk whose
    customers never hear anything never starts the command."""

    def __init__(
        self,
        command: str,
        *,
        language: str = "en",
        popen: Callable[..., subprocess.Popen[bytes]] = subprocess.Popen,
        max_restarts: int = MAX_RESTARTS,
    ) -> None:
        self.command = command
        self._popen = popen
        self._language = language
        self._max_restarts = max_restarts
        self._queue: deque[tuple[str, bool]] = deque()
        self._ready = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._started_for: list[str] | None = None
        self.restarts = 0
        self.gave_up = False
        self.written = 0  # lines written (tests and the log)

    # The UI's side: never blocks for more than a lock held for a few list operations ----------
    def say(self, text: str, *, keep: bool = False) -> None:
        line = one_line(text)
        if not line or self.gave_up or self._closed:
            return
        with self._ready:
            # A line not yet written is replaced by the newer one, unless it must be kept.
            kept = [item for item in self._queue if item[1]]
            self._queue.clear()
            self._queue.extend(kept[-(QUEUE_SIZE - 1) :])
            self._queue.append((line, keep))
            self._ready.notify()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="kiosk-speech", daemon=True)
                self._thread.start()

    def set_language(self, code: str) -> None:
        with self._ready:
            self._language = code

    def close(self) -> None:
        with self._ready:
            # What is queued is still written (the thread ends when none is left).
            self._closed = True
            self._ready.notify()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)
        self._stop_process()

    # The writer thread ----------------------------------------------------------------------------
    def _next(self) -> tuple[str, list[str]] | None:
        with self._ready:
            while not self._queue and not self._closed:
                self._ready.wait()
            if not self._queue:
                return None  # closed, and nothing left to write
            line, _keep = self._queue.popleft()
            return line, argv_for(self.command, self._language)

    def _run(self) -> None:
        while True:
            item = self._next()
            if item is None:
                return
            line, argv = item
            self._write(line, argv)
            if self.gave_up:
                with self._ready:
                    self._queue.clear()
                return

    def _write(self, line: str, argv: list[str]) -> None:
        data = (line + "\n").encode("utf-8", "replace")
        for _attempt in range(2):  # the line once more after a restart
            process = self._process_for(argv)
            if process is None or process.stdin is None:
                return
            try:
                process.stdin.write(data)
                process.stdin.flush()
                self.written += 1
                return
            except (BrokenPipeError, OSError, ValueError):
                self._died(process)

    def _process_for(self, argv: list[str]) -> subprocess.Popen[bytes] | None:
        process = self._process
        if process is not None and self._started_for != argv:
            self._stop_process()  # another language: the command again, not a failure
            process = None
        if process is not None and process.poll() is not None:
            self._died(process)
            process = None
        if process is None:
            if self.gave_up:
                return None
            try:
                process = self._popen(
                    argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    close_fds=True,
                )
            except OSError as exc:
                self._give_up(f"cannot start {argv[0]!r}: {exc.strerror or exc}")
                return None
            self._process, self._started_for = process, argv
        return process

    def _died(self, process: subprocess.Popen[bytes]) -> None:
        code = process.poll()
        self._stop_process()
        self.restarts += 1
        if self.restarts > self._max_restarts:
            self._give_up(f"{self.command!r} exited {self.restarts} times (last status {code})")
        else:
            log.warning("speech: %r exited (status %s): started again", self.command, code)

    def _give_up(self, why: str) -> None:
        self.gave_up = True
        log.error("speech: %s; speech is off until the kiosk restarts", why)

    def _stop_process(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            process.terminate()
            try:
                process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                process.kill()


def speaker_for(enabled: bool, command: str | None, language: str = "en") -> CommandSpeaker | None:
    """The kiosk's speaker for its settings (`speech`, `speech_command`); None when off."""
    if not enabled:
        return None
    return CommandSpeaker(command_for(command), language=language)


def check(
    command: str,
    *,
    run: Callable[..., subprocess.CompletedProcess[bytes]] = subprocess.run,
    timeout: float = 5.0,
) -> tuple[bool, str]:
    """Whether `command` answers (for `kiosk doctor`), and how that was found.

    spd-say: `spd-say --list-output-modules` connects to speech-dispatcher (exit 0 when it
    answers). espeak-ng: it synthesises a word without sound (`-q`). Anything else: it is
    started, given one empty line and its end of input, and must exit 0 within the timeout."""
    argv = argv_for(command, "en")
    if not argv:
        return False, "speech_command is empty"
    program = argv[0].rsplit("/", 1)[-1]
    if program == "spd-say":
        probe: Sequence[str] = [argv[0], "--list-output-modules"]
        given = b""
    elif program == "espeak-ng":
        probe = [*argv, "-q", "ok"]  # its own options too: a wrong voice fails here
        given = b""
    else:
        probe = argv
        given = b"\n"
    try:
        done = run(
            list(probe),
            input=given,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        return False, f"{argv[0]} is not installed (or not on PATH)"
    except OSError as exc:
        return False, f"{argv[0]} cannot start: {exc.strerror or exc}"
    except subprocess.TimeoutExpired:
        return False, f"{argv[0]} did not answer within {timeout:.0f} s"
    if done.returncode != 0:
        said = one_line((done.stderr or b"").decode("utf-8", "replace"))[:200]
        return False, f"{' '.join(probe)} exited {done.returncode}" + (f": {said}" if said else "")
    return True, f"{' '.join(probe)} answered"
