"""Secure defaults whenever DEBUG is off, each switchable for a plain-HTTP run.

Why: ``manage.py check --deploy`` must find nothing with production-like settings
(HSTS, the SSL redirect, Secure session and CSRF cookies), and each must still be
settable from the environment. Settings are read once, at start, so each case
runs ``manage.py`` in a process of its own with the environment a deployment
would give it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from django.conf import settings

PRODUCTION = {
    "SECRET_KEY": "x" * 20 + "a-long-random-secret-key-for-the-deploy-check-0123456789",
    "ALLOWED_HOSTS": "gin3.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://gin3.example.org",
    "BEHIND_PROXY": "1",
    "SITE_URL": "https://gin3.example.org",
}
HTTPS_SETTINGS = (
    "SECURE_SSL_REDIRECT",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
)


def manage(
    *args: str, environment: dict[str, str], tmp_path, unset: tuple[str, ...] = ()
) -> subprocess.CompletedProcess:
    dropped = ("DEBUG", "GIN3_PLAIN_HTTP", *HTTPS_SETTINGS, *unset)
    inherited = {k: v for k, v in os.environ.items() if k not in dropped}
    env = {**inherited, "GIN3_VAR_DIR": str(tmp_path), **environment}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True
    )


def https_settings(environment: dict[str, str], tmp_path) -> dict[str, object]:
    code = "from django.conf import settings; import json; print(json.dumps({n: getattr(settings, n) for n in %r}))"
    result = manage("shell", "-c", code % (HTTPS_SETTINGS,), environment=environment, tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_check_deploy_finds_nothing_with_production_settings(tmp_path):
    result = manage("check", "--deploy", "--fail-level", "WARNING", environment=PRODUCTION, tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_with_debug_off_every_https_setting_is_on_by_default(tmp_path):
    assert https_settings(PRODUCTION, tmp_path) == {
        "SECURE_SSL_REDIRECT": True,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 365 * 86400,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
        "SECURE_HSTS_PRELOAD": True,
    }


def test_a_plain_http_run_turns_them_all_off_and_each_can_be_set_on_its_own(tmp_path):
    plain = https_settings({**PRODUCTION, "GIN3_PLAIN_HTTP": "1"}, tmp_path)
    assert not any(plain.values())
    one = https_settings({**PRODUCTION, "SECURE_HSTS_PRELOAD": "0", "SECURE_HSTS_SECONDS": "600"}, tmp_path)
    assert (one["SECURE_HSTS_PRELOAD"], one["SECURE_HSTS_SECONDS"], one["SECURE_SSL_REDIRECT"]) == (False, 600, True)


def test_the_readme_says_gin3_var_dir_moves_var_and_everything_it_says_is_there_moves(tmp_path):
    """README said the SQLite file and the broker live under ``var/`` but not that
    ``GIN3_VAR_DIR`` moves them (only docs/deploy.md did). What it names as moving with
    the folder, with no other setting, does."""
    readme = (Path(settings.BASE_DIR) / "README.md").read_text(encoding="utf-8")
    (paragraph,) = [each for each in re.split(r"\n\s*\n", readme) if "`var/`" in each]
    assert "`GIN3_VAR_DIR`" in paragraph
    folder = tmp_path / "elsewhere"
    unset = ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "PROMETHEUS_MULTIPROC_DIR")
    code = (
        "import json; from django.conf import settings as s; from games import metrics;"
        "from bot.terminal import session; o = s.CELERY_BROKER_TRANSPORT_OPTIONS; print(json.dumps([str(p) for p in ("
        "s.DATABASES['default']['NAME'], o['data_folder_in'], o['control_folder'], s.CELERY_BEAT_SCHEDULE_FILENAME,"
        "s.STATIC_ROOT, metrics.DIRECTORY, s.VAR_DIR / session.BUG_LOG)]))"
    )
    result = manage("shell", "-c", code, environment={"GIN3_VAR_DIR": str(folder)}, tmp_path=tmp_path, unset=unset)
    assert result.returncode == 0, result.stderr
    places = [Path(place) for place in json.loads(result.stdout.strip().splitlines()[-1])]
    assert all(place.parent == folder for place in places), places
    assert (folder / "secret_key").is_file()  # made for this machine, there


def test_processes_that_start_at_once_on_a_fresh_machine_all_read_one_whole_key(tmp_path, monkeypatch):
    """``make run``'s children, or two test runs, may each find no key: the first one
    linked into place is every process's, never one half written or overwritten."""
    import gin3site.settings as gin3_settings

    monkeypatch.setattr(gin3_settings, "VAR_DIR", tmp_path)
    start = threading.Barrier(8)

    def read_key(_index: int) -> str:
        start.wait()
        return gin3_settings.local_secret_key()

    with ThreadPoolExecutor(8) as pool:
        keys = set(pool.map(read_key, range(8)))
    assert len(keys) == 1 and len(keys.pop()) >= 50
    assert [path.name for path in tmp_path.iterdir()] == ["secret_key"]
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
