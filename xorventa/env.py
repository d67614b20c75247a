"""Typed readers for environment variables that fail loudly on bad values.

Every setting the product reads from the environment goes through one of these, so a typo in a
deployment (``DEBUG=ture``, ``XORVENTA_RATE=ten``) stops start-up with a message naming the variable
instead of silently falling back to a default.
"""

from __future__ import annotations

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={raw!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off."
    )


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} is below the minimum of {minimum}.")
    return value


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number.") from None


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default or [])
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_path(name: str, default: Path) -> Path:
    raw = os.environ.get(name)
    return Path(raw).expanduser().resolve() if raw else default


def env_secret(name: str, *, debug: bool, debug_default: str) -> str:
    """A secret from ``NAME`` or from the file named by ``NAME_FILE`` (Docker/Kubernetes secrets).

    Outside DEBUG there is no default: a production process without its secret must not start.
    """
    file_name = os.environ.get(f"{name}_FILE")
    if file_name:
        try:
            return Path(file_name).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE={file_name!r} cannot be read: {exc}") from None
    value = os.environ.get(name, "")
    if value:
        return value
    if debug:
        return debug_default
    raise ImproperlyConfigured(f"{name} must be set when DEBUG is off (or {name}_FILE naming a file).")


def load_dotenv(path: Path) -> None:
    """Read KEY=VALUE lines from ``path`` into os.environ without overriding what is already set.

    `make run` writes a .env with a generated SECRET_KEY on first start; real deployments set the
    environment directly and need no file.
    """
    if not path.is_file():
        return
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ImproperlyConfigured(f"{path}:{number}: expected KEY=VALUE, got {line!r}.")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]  # quoted: taken as is
        else:
            value = value.split(" #", 1)[0].strip()  # unquoted: an inline comment ends the value
        os.environ.setdefault(key.strip(), value)
