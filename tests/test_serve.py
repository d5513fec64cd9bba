"""``manage.py serve``'s supervisor: a child that dies is restarted with a back-off,
and a stop signal stops every child and whatever its process group started.

Why real processes: what must hold (a restart after ``kill -9``, nothing left
behind after Ctrl-C) is about pids, process groups and signals, which a mock
would only restate.
"""

from __future__ import annotations

import io
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command

from games.management.commands.serve import Child, Supervisor, framed
from tests.workers import worker_ports

PYTHON = sys.executable
STARTED = re.compile(r"^(?P<name>\w+)\s*\| started \(pid (?P<pid>\d+)\)", re.MULTILINE)
PORTS = worker_ports(50, 20)


class Output(io.StringIO):
    """The supervisor's output, readable while it runs."""

    def __init__(self) -> None:
        super().__init__()
        self.guard = threading.Lock()

    def write(self, text: str) -> int:
        with self.guard:
            return super().write(text + "\n")

    def text(self) -> str:
        with self.guard:
            return self.getvalue()


def wait_until(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)
    return value


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie counts as gone: its parent is about to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def left_in_sessions(sessions: set[int]) -> list[int]:
    """Processes still running in the sessions (process groups) the supervisor made."""
    left = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        state, session = fields[0], int(fields[3])
        if session in sessions and state != "Z":
            left.append(int(entry.name))
    return left


def started_pids(output: str, name: str) -> list[int]:
    return [int(m["pid"]) for m in STARTED.finditer(output) if m["name"] == name]


def run_supervisor(children: list[Child], **options) -> tuple[Supervisor, Output, threading.Thread]:
    out = Output()
    supervisor = Supervisor(children, out, **options)
    thread = threading.Thread(target=supervisor.run, daemon=True)
    thread.start()
    return supervisor, out, thread


def stop(supervisor: Supervisor, thread: threading.Thread) -> None:
    supervisor.stop.set()
    thread.join(30)
    assert not thread.is_alive(), "the supervisor did not stop"


def test_a_child_that_dies_is_restarted_with_a_doubling_back_off_and_the_others_go_on():
    crasher = Child("crasher", [PYTHON, "-c", "print('up'); raise SystemExit(3)"])
    steady = Child("steady", [PYTHON, "-c", "import time; time.sleep(60)"])
    supervisor, out, thread = run_supervisor(
        [crasher, steady], first_delay=0.2, max_delay=0.8, stable_after=100, grace=5
    )
    try:
        wait_until(lambda: len(started_pids(out.text(), "crasher")) >= 5, 15, "five starts of the crasher")
    finally:
        stop(supervisor, thread)
    text = out.text()
    delays = [float(d) for d in re.findall(r"crasher \| exited with 3 after \d+ s: restarting in ([\d.]+) s", text)]
    assert delays[:4] == [0.2, 0.4, 0.8, 0.8]
    assert "crasher | up" in text
    assert len(started_pids(text, "steady")) == 1
    assert "steady  | stopped (SIGTERM)" in text
    pids = started_pids(text, "crasher") + started_pids(text, "steady")
    assert not [pid for pid in pids if alive(pid)]


def test_the_back_off_starts_again_once_a_child_has_run_for_a_while():
    flaky = Child("flaky", [PYTHON, "-c", "import time; time.sleep(0.4); raise SystemExit(1)"])
    supervisor, out, thread = run_supervisor([flaky], first_delay=0.1, max_delay=10, stable_after=0.3, grace=5)
    try:
        wait_until(lambda: len(started_pids(out.text(), "flaky")) >= 4, 15, "four starts")
    finally:
        stop(supervisor, thread)
    delays = re.findall(r"restarting in ([\d.]+) s", out.text())
    assert set(delays) == {"0.1"}


def test_a_stop_during_a_back_off_starts_nothing_more():
    crasher = Child("crasher", [PYTHON, "-c", "raise SystemExit(2)"])
    supervisor, out, thread = run_supervisor([crasher], first_delay=30, grace=5)
    wait_until(lambda: "restarting in 30 s" in out.text(), 10, "the first exit")
    stop(supervisor, thread)
    assert len(started_pids(out.text(), "crasher")) == 1


def test_stopping_kills_what_a_child_left_behind_in_its_process_group():
    """A child whose own children ignore SIGTERM (a worker's pool busy with a task)."""
    code = (
        "import signal, subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', "
        "'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True); time.sleep(60)'])\n"
        "print('grandchild', p.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = Child("parent", [PYTHON, "-c", code])
    supervisor, out, thread = run_supervisor([parent], grace=5)
    grandchild = int(wait_until(lambda: re.search(r"grandchild (\d+)", out.text()), 10, "the grandchild")[1])
    stop(supervisor, thread)
    wait_until(lambda: not alive(grandchild), 5, "the grandchild to be gone")


def test_the_admin_password_comes_last_framed_after_every_childs_start_up_output():
    """``make run`` printed it before Celery's banner and its warnings (about 40 lines
    after it): a 50-row terminal had lost it by the time the site was up. A child may
    say more after a pause: the frame comes again after it."""
    script = "import time\nprint('up',flush=True)\ntime.sleep({})\nprint('banner\\nwarning',flush=True)\ntime.sleep(5)"
    children = [Child("quick", [PYTHON, "-c", script.format(0)]), Child("slow", [PYTHON, "-c", script.format(1.5)])]
    words = framed("user admin, password s3cret (shown only now)\nA new password at any time: changepassword admin")
    supervisor, out, thread = run_supervisor(children, grace=5, last_words=words, quiet_after=0.5)
    try:
        wait_until(lambda: "s3cret" in out.text().partition("slow  | warning")[2], 30, "the last words after the slow")
        time.sleep(1.5)  # nothing more comes
        shown = out.text()
    finally:
        stop(supervisor, thread)
    lines = shown.splitlines()
    assert lines[-5:] == words.splitlines()  # a blank line, a rule, the two lines, a rule
    assert set(lines[-4]) == {"="}
    assert len([line for line in lines if line.endswith(("| banner", "| warning"))]) == 4


@pytest.mark.django_db
def test_ensureadmin_says_where_the_desk_is_and_how_to_get_a_new_password(monkeypatch):
    monkeypatch.setattr(sys, "executable", str(Path(settings.BASE_DIR) / ".venv" / "bin" / "python"))
    first, again = io.StringIO(), io.StringIO()
    call_command("ensureadmin", site="http://127.0.0.1:8080", stdout=first)
    call_command("ensureadmin", site="http://127.0.0.1:8080", stdout=again)
    password = re.search(r"user admin, password (\S+) \(shown only now\)", first.getvalue())[1]
    assert get_user_model().objects.get(username="admin").check_password(password)
    assert "http://127.0.0.1:8080/admin/" in first.getvalue() and "http://127.0.0.1:8080/admin/" in again.getvalue()
    assert password not in again.getvalue()
    for said in (first, again):
        assert said.getvalue().splitlines()[-1] == (
            "A new password at any time: .venv/bin/python manage.py changepassword admin"
        )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("executable", "typed"),
    [
        ("{repo}/.venv/bin/python", ".venv/bin/python"),
        ("{repo}/env/bin/python3.12", "env/bin/python3.12"),
        ("/opt/python 3/bin/python3", "'/opt/python 3/bin/python3'"),
        ("/usr/bin/python3", "/usr/bin/python3"),
    ],
)
def test_the_new_password_command_names_the_python_that_runs_gin3(monkeypatch, executable, typed):
    """It said ``python manage.py changepassword admin``: on a fresh machine there may be
    no ``python``, or one without Django; ``make run`` runs ``.venv/bin/python``, as the
    README says. Inside the repository the path is relative to it; outside, whole."""
    monkeypatch.setattr(sys, "executable", executable.format(repo=settings.BASE_DIR))
    said = io.StringIO()
    call_command("ensureadmin", site="http://127.0.0.1:8080", stdout=said)
    assert said.getvalue().splitlines()[-1] == f"A new password at any time: {typed} manage.py changepassword admin"


def free_port() -> int:
    for port in PORTS:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.skip(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except OSError:
        return 0


@pytest.mark.slow
def test_serve_restarts_a_worker_killed_with_sigkill_and_sigint_stops_everything(tmp_path):
    """``make run`` for real, on a fresh SQLite file and the filesystem broker."""
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "TELEGRAM_BOT_TOKEN")},
        "GIN3_VAR_DIR": str(tmp_path / "var"),
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),  # serve empties it: not this run's
        "PYTHONUNBUFFERED": "1",
    }
    log = (tmp_path / "serve.log").open("w+")
    serve = subprocess.Popen(
        [PYTHON, str(settings.BASE_DIR / "manage.py"), "serve", "--port", str(port)],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    output = lambda: (tmp_path / "serve.log").read_text()  # noqa: E731
    try:
        wait_until(lambda: started_pids(output(), "delivery"), 120, "the delivery worker to start")
        site = f"http://127.0.0.1:{port}/"
        wait_until(lambda: get(site) == 200, 60, "the site to answer")
        (worker,) = started_pids(output(), "delivery")
        wait_until(lambda: re.search(r"delivery \| .* ready", output()), 60, "the delivery worker to be ready")
        os.kill(worker, signal.SIGKILL)
        wait_until(lambda: len(started_pids(output(), "delivery")) == 2, 30, "the worker to be restarted")
        assert "delivery | exited with SIGKILL" in output()
        assert serve.poll() is None
        assert get(site) == 200
        assert len(started_pids(output(), "web")) == 1 and len(started_pids(output(), "beat")) == 1
        assert len(started_pids(output(), "clock")) == 1 and len(started_pids(output(), "computer")) == 1
        sessions = {int(m["pid"]) for m in STARTED.finditer(output())}
        serve.send_signal(signal.SIGINT)
        assert serve.wait(60) == 0
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
        log.close()
    assert left_in_sessions(sessions) == [], output()
    assert get(f"http://127.0.0.1:{port}/") == 0
