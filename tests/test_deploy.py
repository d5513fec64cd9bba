"""The compose file deploys without editing: every setting passes through from the
environment or .env, .env.example documents each, every service has a health
check, and the image installs the runtime lock alone.

The settings are those of docs/deploy.md's table (the README's settings point
there) and those gin3site/settings.py reads from the environment; the compose
file is read as YAML, as compose reads it before it substitutes variables.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
INTERNAL = {"GIN3_ASGI"}  # set by gin3site/asgi.py itself, never by an operator
GIN3_SERVICES = ("migrate", "web", "clock", "delivery", "computer", "review", "beat", "bot")
PROCESSES = ("web", "clock", "delivery", "computer", "review", "beat", "bot")


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def documented_settings() -> set[str]:
    """The first column of the settings table in docs/deploy.md."""
    text = (ROOT / "docs" / "deploy.md").read_text()
    table = text[text.index("### Settings") :]
    names = set()
    for line in table.splitlines():
        if line.startswith("| `"):
            first_column = line.split("|")[1]
            names |= set(re.findall(r"`([A-Z][A-Z0-9_]+)`", first_column))
    return names


def settings_read_from_the_environment() -> set[str]:
    source = (ROOT / "gin3site" / "settings.py").read_text()
    return set(re.findall(r"""(?:environ\.get|env_bool|env_list)\(\s*["']([A-Z][A-Z0-9_]+)["']""", source))


def test_the_table_documents_every_setting_settings_py_reads():
    assert settings_read_from_the_environment() - INTERNAL - documented_settings() == set()


@pytest.mark.parametrize("service", GIN3_SERVICES)
def test_every_setting_passes_through_to_every_gin3_service(service):
    environment = compose()["services"][service]["environment"]
    for name in sorted(documented_settings() | settings_read_from_the_environment() - INTERNAL):
        assert name in environment, f"{name} cannot be set for {service}"
        assert re.fullmatch(rf"\$\{{{name}(:[-?].*)?\}}", str(environment[name])), (
            f"{service}: {name} is {environment[name]!r}, not taken from the environment"
        )


def test_no_service_has_a_value_of_its_own_that_the_environment_cannot_change():
    for name, service in compose()["services"].items():
        for key, value in (service.get("environment") or {}).items():
            assert str(value).startswith("${"), f"{name}: {key}={value!r} is fixed in the file"


def test_passwords_and_keys_have_no_default():
    services = compose()["services"]
    assert services["web"]["environment"]["SECRET_KEY"].startswith("${SECRET_KEY:?")
    assert services["web"]["environment"]["DATABASE_URL"].startswith("${DATABASE_URL:?")
    assert services["postgres"]["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")


def test_env_example_lists_every_variable_the_compose_file_uses():
    text = (ROOT / "docker-compose.yml").read_text()
    used = set(re.findall(r"(?<!\$)\$\{([A-Z][A-Z0-9_]+)", text))
    listed = set(re.findall(r"^([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.MULTILINE))
    assert used - listed == set()
    assert documented_settings() - listed == set()


@pytest.mark.parametrize("service", [*PROCESSES, "postgres", "redis"])
def test_every_long_running_service_has_a_health_check(service):
    check = compose()["services"][service]["healthcheck"]
    assert check["test"][0] in ("CMD", "CMD-SHELL")


@pytest.mark.parametrize("service", PROCESSES)
def test_every_process_runs_through_manage_py_serve(service):
    command = compose()["services"][service]["command"]
    assert command[:5] == ["python", "manage.py", "serve", "--only", service]


def test_workers_and_beat_are_checked_by_their_own_heartbeat():
    services = compose()["services"]
    for queue in settings.GIN3_QUEUES:
        assert f"heartbeats --process {queue}@$${{HOSTNAME}}" in services[queue]["healthcheck"]["test"][1]
    assert services["beat"]["healthcheck"]["test"][-1] == "beat"
    assert "/healthz/ready" in services["web"]["healthcheck"]["test"][-1]


def test_the_image_installs_the_runtime_lock_alone_with_hashes():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install --require-hashes -r requirements.txt" in dockerfile
    assert "requirements-dev" not in dockerfile
    runtime = (ROOT / "requirements.txt").read_text()
    pinned = re.findall(r"^([a-z0-9_.-]+)==\S+ \\$", runtime, re.MULTILINE)
    assert pinned and not {"pytest", "pytest-django", "hypothesis", "ruff", "playwright", "pip-tools"} & set(pinned)
    lines = [line for line in runtime.splitlines() if line and not line.startswith(("#", " "))]
    assert all("==" in line for line in lines)
    assert runtime.count("--hash=sha256:") >= len(pinned)


def test_the_development_lock_has_the_runtime_lock_in_it_at_the_same_versions():
    def pins(name: str) -> dict[str, str]:
        return dict(re.findall(r"^([a-z0-9_.-]+)==(\S+) \\$", (ROOT / name).read_text(), re.MULTILINE))

    runtime, development = pins("requirements.txt"), pins("requirements-dev.txt")
    assert {name: development.get(name) for name in runtime} == runtime
    assert {"pytest", "ruff", "hypothesis", "playwright"} <= set(development)


def test_make_installs_with_the_uv_of_the_bootstrap_lock_and_requires_every_hash():
    bootstrap = (ROOT / "requirements-bootstrap.txt").read_text()
    assert re.findall(r"^([a-z0-9_.-]+)==\S+ \\$", bootstrap, re.MULTILINE) == ["uv"]
    assert "--hash=sha256:" in bootstrap
    makefile = (ROOT / "Makefile").read_text()
    assert "pip install --quiet --require-hashes -r requirements-bootstrap.txt" in makefile
    assert "uv pip install --quiet --python $(BIN)/python --require-hashes" in makefile
