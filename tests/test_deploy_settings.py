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
import subprocess
import sys

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


def manage(*args: str, environment: dict[str, str], tmp_path) -> subprocess.CompletedProcess:
    inherited = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "GIN3_PLAIN_HTTP", *HTTPS_SETTINGS)}
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
