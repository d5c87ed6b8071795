"""A GTP v2 program run as a child process: one command at a time, each answer awaited
within a time limit, so a program that dies or stops answering raises `ProgramFailure`
instead of hanging the match or ending it in a traceback.

The program runs in a session of its own, so closing it also ends any process it started
(a wrapper script's interpreter, say). Its standard error is read and kept short: the last
line it wrote there says why it died.
"""
from __future__ import annotations

import collections
import os
import queue
import shlex
import signal
import subprocess
import threading
import time

FAILURE_KINDS = ("crash", "timeout")
QUIT_SECONDS = 2.0  # how long `close` waits for an orderly exit after quit


class ProgramFailure(Exception):
    """The program died, broke the protocol (`kind` 'crash') or ran past a time limit
    ('timeout'); the message is one sentence."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class GtpProgram:
    """`command` split as a shell would (no shell runs it); `start_seconds` bounds the wait
    for its first answer, `list_commands`, whose names are kept in `commands`."""

    def __init__(self, command: str, start_seconds: float):
        self.command = command
        try:
            self.process = subprocess.Popen(
                shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, errors="replace", bufsize=1,
                start_new_session=True)
        except (OSError, ValueError) as error:  # not found, not executable, bad quoting
            raise ProgramFailure("crash", f"cannot start '{command}': "
                                          f"{getattr(error, 'strerror', None) or error}.") from None
        self._lines: queue.Queue = queue.Queue()
        self._errors: collections.deque = collections.deque(maxlen=20)
        self._readers = [threading.Thread(target=read, daemon=True)
                         for read in (self._read_output, self._read_errors)]
        for reader in self._readers:
            reader.start()
        try:
            ok, names = self.ask("list_commands", start_seconds)
        except ProgramFailure:
            self.close()
            raise
        if not ok:
            self.close()
            raise ProgramFailure("crash", f"'{command}' refused list_commands: {names}")
        self.commands = set(names.split())

    def _read_output(self) -> None:
        try:
            for line in self.process.stdout:
                self._lines.put(line)
        except (OSError, ValueError):
            pass  # a broken pipe ends the output as its end does
        self._lines.put(None)  # end of output: the program exited or closed it

    def _read_errors(self) -> None:
        try:
            for line in self.process.stderr:
                if line.strip():
                    self._errors.append(line.strip())
        except (OSError, ValueError):
            pass  # nothing more to keep

    def ask(self, command: str, seconds: float) -> tuple[bool, str]:
        """Send one command; (True, its answer) for '=', (False, the reason) for '?'.
        Chatter before an answer's first line is skipped, as are lines that are neither."""
        try:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise ProgramFailure("crash", self._death(command)) from None
        deadline = time.monotonic() + seconds
        answer: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise ProgramFailure("timeout", f"no answer to '{command}' within {seconds:g} "
                                                "seconds.") from None
            if line is None:
                raise ProgramFailure("crash", self._death(command))
            line = line.rstrip("\r\n")
            if answer and not line.strip():
                break
            if answer or line.startswith(("=", "?")):
                answer.append(line)
        text = "\n".join([answer[0][1:].strip()] + answer[1:]).strip()
        return answer[0][0] == "=", text

    def _death(self, command: str) -> str:
        try:
            code = self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        how = "closed its output" if code is None else f"exited with code {code}"
        time.sleep(0.05)  # let the error reader take the last line
        last = f" (its last words on stderr: '{self._errors[-1][:200]}')" if self._errors else ""
        return f"it {how} at '{command}'{last}."

    def close(self, ask_to_quit: bool = True) -> None:
        """End the program's session of processes: at once, or after `quit` and a short wait
        for an orderly exit (pointless for a program that has stopped answering)."""
        if ask_to_quit and self.process.poll() is None:
            try:
                self.process.stdin.write("quit\n")
                self.process.stdin.flush()
                self.process.wait(timeout=QUIT_SECONDS)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass  # it is killed below
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # the whole session has already exited
        self.process.wait()
        for reader in self._readers:  # both reach the end of their pipe once all have exited
            reader.join(timeout=QUIT_SECONDS)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass  # a pipe the program broke
