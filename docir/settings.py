"""What the caller's environment decides for the layers below the command line, read once at the edge.

A command's environment is its caller's: this process's own, or, in the warm worker, the worker's
with its client's DOCIR_* names (docir/invocation.py). Below the command line nothing reads the
process's environment (tests/test_architecture.py); the edge reads it here, once, and hands the
settings down (adr-3c5e7a90b1d4). Every environment variable the layers below read is named here.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing's: every command makes its settings, and a cold one pays for each import
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

VECTORS = "DOCIR_VECTORS"  # the vector vault's file, or "off"
VECTORS_MB = "DOCIR_VECTORS_MB"  # its size cap in MB
DEFAULT_VECTORS_MB = 2048  # about 1.3 million 384-dim vectors: dozens of large stores
MODEL_PATH = "DOCIR_MODEL_PATH"  # a model folder (an *.onnx and tokenizer.json), over the schema's model_path
MODEL_NAME = "DOCIR_MODEL_NAME"  # the name of the model in MODEL_PATH
MODEL_BUILD = "DOCIR_MODEL_BUILD"  # "int8": the integer build of the packaged model (adr-5b1e0c7d2a94)
WORKER = "DOCIR_WORKER"  # "0": no warm worker is asked or started
WORKER_IDLE = "DOCIR_WORKER_IDLE"  # seconds a worker waits for a command before it stops
_OFF = ("off", "0", "none")


class Settings:
    """A plain class, not a NamedTuple: making the class cost a cold command a millisecond."""

    __slots__ = ("cache", "vault", "vault_cap", "model_path", "model_name", "model_build", "worker", "runtime",
                 "env")

    def __init__(self, cache: Path, vault: Path | None, vault_cap: int, model_path: str | None,
                 model_name: str | None, model_build: str | None, worker: bool, runtime: str | None,
                 env: Mapping[str, str]) -> None:
        self.cache = cache  # docir's folder in the user's cache: the assembled model, the vault, kept help
        self.vault = vault  # the vector vault's file; None: turned off
        self.vault_cap = vault_cap  # its size cap in bytes
        self.model_path = model_path
        self.model_name = model_name
        self.model_build = model_build
        self.worker = worker  # a warm worker may be asked and started
        self.runtime = runtime  # XDG_RUNTIME_DIR: where the worker's socket lives
        self.env = env  # the whole environment, for a child process (git) and libpq's PG* names

    @classmethod
    def of(cls, env: Mapping[str, str]) -> Settings:
        from pathlib import Path

        home = env.get("HOME") or _home()
        cache = Path(env.get("XDG_CACHE_HOME") or Path(home, ".cache")) / "docir"
        chosen = env.get(VECTORS, "")
        vault = None if chosen.lower() in _OFF else _expanded(chosen, home) if chosen else cache / "vectors.db"
        return cls(cache, vault, _cap(env.get(VECTORS_MB, "")), env.get(MODEL_PATH) or None,
                   env.get(MODEL_NAME) or None, env.get(MODEL_BUILD) or None, worker_wanted(env),
                   env.get("XDG_RUNTIME_DIR") or None, env)

    def expanded(self, path: str) -> Path:
        """A path the caller wrote, `$NAME` and `${NAME}` from the caller's environment (an unknown name
        left as it is, like os.path.expandvars) and `~` as the caller's home."""
        import re

        named = re.sub(r"\$(\w+|\{[^}]*\})", lambda m: self.env.get(m.group(1).strip("{}"), m.group(0)), path)
        return _expanded(named, self.env.get("HOME") or _home())

    def libpq(self) -> tuple[str, ...]:
        """libpq's own environment (PGPASSWORD, PGSERVICE, PGUSER, PGCONNECT_TIMEOUT ...), name=value."""
        return tuple(sorted(f"{name}={value}" for name, value in self.env.items() if name.startswith("PG")))


def worker_wanted(env: Mapping[str, str]) -> bool:
    """Whether a warm worker may be asked and started: the warm client asks before anything else is made."""
    return env.get(WORKER, "1") != "0"


def _cap(raw: str) -> int:
    try:
        megabytes = float(raw) if raw else DEFAULT_VECTORS_MB
    except ValueError:
        megabytes = DEFAULT_VECTORS_MB
    return max(int(megabytes * 1024 * 1024), 1024 * 1024)


def _expanded(path: str, home: str) -> Path:
    """`~/x` as the caller's home holds it (Path.expanduser would ask this process's environment)."""
    from pathlib import Path

    return Path(home, path[2:]) if path == "~" or path.startswith("~/") else Path(path)


def _home() -> str:
    """The user's home folder from the password database, when the environment names none."""
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:  # no passwd entry (a container's arbitrary uid): nowhere of one's own
        return os.sep
