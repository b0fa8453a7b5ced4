"""kiosk.speech (issue 34): one command started once, a line an utterance, never waited for; a
line not yet written replaced by a newer one; a command that dies started again a bounded number
of times; the doctor's check. The commands here are small Python programs (loopback only)."""

from __future__ import annotations

import io
import logging
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from kiosk import speech
from kiosk.config import Settings
from kiosk.doctor import _Report, check_speech
from kiosk.speech import CommandSpeaker, argv_for, command_for, default_command, one_line

# A speech command for tests: every line it reads, appended to the file named by its argument.
RECORDER = (
    "import sys\n"
    "with open(sys.argv[1], 'a', encoding='utf-8') as out:\n"
    "    for line in sys.stdin:\n"
    "        out.write(line); out.flush()\n"
)


def python_command(script: str, *args: str) -> str:
    return subprocess.list2cmdline([sys.executable, "-c", script, *args])


def test_each_utterance_is_one_line_on_the_command_started_once(tmp_path: Path) -> None:
    heard = tmp_path / "heard.txt"
    started: list[list[str]] = []

    def popen(argv: list[str], **options: Any) -> subprocess.Popen[bytes]:
        started.append(argv)
        return subprocess.Popen(argv, **options)

    speaker = CommandSpeaker(python_command(RECORDER, str(heard)), popen=popen)
    speaker.say("Menu.\nType to search.", keep=True)  # one line, whatever it holds
    speaker.say("Tea, £2.50", keep=True)
    speaker.say("   ")  # nothing to say: nothing written
    speaker.close()
    assert heard.read_text(encoding="utf-8") == "Menu. Type to search.\nTea, £2.50\n"
    assert len(started) == 1


def test_a_line_not_yet_written_is_replaced_by_a_newer_one() -> None:
    """The writer is held inside the command's stdin (a command that does not read): what
    comes meanwhile replaces what waits, except a line to keep (the order number); and `say`
    returns at once all the while: speech never delays a key."""
    release = threading.Event()
    written: list[bytes] = []

    class Stuck(io.RawIOBase):
        def write(self, data: Any) -> int:
            release.wait(10)
            written.append(bytes(data))
            return len(data)

    class Process:
        stdin = Stuck()

        def poll(self) -> None:
            return None

        def wait(self, timeout: float | None = None) -> int:
            return 0

    speaker = CommandSpeaker("anything", popen=lambda *a, **k: Process())  # type: ignore[arg-type,return-value]
    speaker.say("first")  # taken by the writer, which is now stuck writing it
    for _ in range(200):
        if speaker._thread is not None and not speaker._queue:
            break
        threading.Event().wait(0.01)
    for n in range(1000):
        speaker.say(f"row {n}")
    speaker.say("Your order number is A, 1.", keep=True)
    speaker.say("row after")
    assert [line for line, _ in speaker._queue] == ["Your order number is A, 1.", "row after"]
    release.set()
    speaker.close()
    assert written[0] == b"first\n"


def test_a_command_that_dies_is_started_again_then_given_up(
    caplog: pytest.LogCaptureFixture,
) -> None:
    started: list[object] = []

    class Dead:
        """A command that has exited (status 3): its stdin is a broken pipe."""

        class stdin:
            @staticmethod
            def write(data: bytes) -> int:
                raise BrokenPipeError

            flush = close = staticmethod(lambda: None)

        def poll(self) -> int:
            return 3

        def wait(self, timeout: float | None = None) -> int:
            return 3

    def popen(argv: list[str], **options: Any) -> Dead:
        started.append(argv)
        return Dead()

    speaker = CommandSpeaker("speaker", popen=popen, max_restarts=2)  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="kiosk.speech"):
        speaker.say("hello", keep=True)  # written, and once more after a restart
        speaker.say("again", keep=True)
        speaker.close()
    assert speaker.gave_up
    assert speaker.restarts == 3 and len(started) == 3  # the first start and two more
    assert "exited (status 3): started again" in caplog.text
    assert "'speaker' exited 3 times (last status 3); speech is off" in caplog.text
    speaker.say("not written")  # after giving up: dropped, never an error
    assert len(started) == 3


def test_a_command_that_cannot_start_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    speaker = CommandSpeaker("/nonexistent/speaker --pipe")
    with caplog.at_level(logging.ERROR, logger="kiosk.speech"):
        speaker.say("hello", keep=True)  # written, and once more after a restart
        speaker.say("again", keep=True)
        speaker.close()
    assert speaker.gave_up
    assert "cannot start '/nonexistent/speaker'" in caplog.text


def test_the_language_fills_the_command_and_starts_it_again(tmp_path: Path) -> None:
    heard = tmp_path / "heard.txt"
    argvs: list[list[str]] = []

    def popen(argv: list[str], **options: Any) -> subprocess.Popen[bytes]:
        argvs.append(argv)
        return subprocess.Popen(argv, **options)

    command = python_command(RECORDER, str(heard)) + " {language}"
    speaker = CommandSpeaker(command, popen=popen)
    speaker.say("Hello", keep=True)
    speaker._thread and speaker.close()
    speaker = CommandSpeaker(command, popen=popen, language="es")
    speaker.say("Hola", keep=True)
    speaker.close()
    assert [argv[-1] for argv in argvs] == ["en", "es"]
    assert speaker.restarts == 0


def test_default_command_prefers_speech_dispatcher() -> None:
    both = {"spd-say": "/usr/bin/spd-say", "espeak-ng": "/usr/bin/espeak-ng"}
    assert default_command(both.get) == speech.SPD_SAY
    assert default_command({"espeak-ng": "/usr/bin/espeak-ng"}.get) == speech.ESPEAK_NG
    assert default_command({}.get) is None
    # Named even where missing, so that the doctor says what to install.
    assert command_for(None, {}.get) == speech.SPD_SAY
    assert command_for("cat", {}.get) == "cat"
    assert argv_for(speech.SPD_SAY, "es")[:2] == ["spd-say", "--pipe-mode"]
    assert argv_for(speech.SPD_SAY, "es")[-2:] == ["--language", "es"]
    assert one_line("a\n\n b\tc ") == "a b c"


def test_settings_refuse_a_command_that_is_not_one() -> None:
    with pytest.raises(ValueError, match="speech_command is not a command line"):
        Settings(speech_command="espeak-ng 'unclosed")
    assert Settings(speech_command="  ").speech_command is None
    assert Settings(speech="yes").speech is True


def test_doctor_names_the_command_and_whether_it_answers(tmp_path: Path) -> None:
    out = io.StringIO()
    check_speech(_Report(out), Settings(speech_command="cat"))
    assert "SKIP speech: off (would use speech_command: cat)" in out.getvalue()

    out = io.StringIO()
    report = _Report(out)
    check_speech(
        report, Settings(speech=True, speech_command=python_command(RECORDER, "/dev/null"))
    )
    assert out.getvalue().startswith("OK   speech: "), out.getvalue()
    assert not report.failed

    out = io.StringIO()
    report = _Report(out)
    check_speech(report, Settings(speech=True, speech_command="/nonexistent/speaker"))
    assert "FAIL speech: /nonexistent/speaker (speech_command) does not answer" in out.getvalue()
    assert "not installed" in out.getvalue()
    assert report.failed


def test_doctor_asks_speech_dispatcher_itself() -> None:
    """spd-say is asked for its output modules (it connects to speech-dispatcher), not given a
    line to say."""
    asked: list[list[str]] = []

    def run(argv: list[str], **options: Any) -> subprocess.CompletedProcess[bytes]:
        asked.append(argv)
        return subprocess.CompletedProcess(argv, 1, b"", b"Failed to connect to Speech Dispatcher")

    ok, how = speech.check(speech.SPD_SAY, run=run)
    assert asked == [["spd-say", "--list-output-modules"]]
    assert not ok and "Failed to connect to Speech Dispatcher" in how
