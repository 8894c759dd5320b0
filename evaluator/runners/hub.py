"""Finding a model (a local folder or a Hugging Face Hub id at a revision) and loading
its config and processor, for both backends and the LLM judges.

transformers and huggingface_hub are imported inside the functions: importing this
module needs neither.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from evaluator.errors import ModelNotFound

log = logging.getLogger(__name__)


def _looks_like_path(model: str) -> bool:
    """A local path rather than a hub id ("org/name" or "name")."""
    if model.startswith(("/", ".", "~")) or model.count("/") > 1:
        return True
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(model)
    except HFValidationError:
        return True
    return False


def check_model(model: str, revision: str | None = None, trust_remote_code: bool = False):
    """The model's config; ModelNotFound (naming the model) when there is none to load."""
    from transformers import AutoConfig

    path = Path(model).expanduser()
    if path.exists():
        if not (path / "config.json").is_file():
            raise ModelNotFound(f"model folder {model} has no config.json: it is not a saved model")
    elif _looks_like_path(model):
        raise ModelNotFound(f"model path {model} does not exist")
    try:
        return AutoConfig.from_pretrained(str(path) if path.exists() else model, revision=revision,
                                          trust_remote_code=trust_remote_code)
    except OSError as e:  # missing repo, revision or file; offline and not cached
        where = f" at revision {revision}" if revision else ""
        raise ModelNotFound(f"model {model}{where} could not be loaded from the Hugging Face Hub: "
                            f"{first_line(e)}") from e


def first_line(error: BaseException) -> str:
    """An error's first line, for a one-line message that names the cause."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


_SHA = re.compile(r"^[0-9a-f]{40}$")


def resolve_revision(model: str, revision: str | None = None, timeout: float = 10.0) -> str | None:
    """The commit a hub model id resolves to (pins "main" or a tag to a sha).

    Online: the Hub's answer. Offline (HF_HUB_OFFLINE=1, or no network): the commit of
    the copy in the local Hugging Face cache. A local folder is not resolved. When
    nothing can be found the given revision is returned unchanged (None if none).
    """
    if Path(model).expanduser().exists() or _looks_like_path(model):
        return revision
    if revision and _SHA.match(revision):
        return revision
    from huggingface_hub import try_to_load_from_cache

    if not _hub_offline():
        try:
            from huggingface_hub import HfApi

            return HfApi().model_info(model, revision=revision, timeout=timeout).sha or revision
        except Exception as e:  # noqa: BLE001 - no network or no such repo: try the cache
            log.info("could not ask the Hub for %s@%s: %s", model, revision or "main", first_line(e))
    cached = try_to_load_from_cache(model, "config.json", revision=revision)
    if isinstance(cached, str):  # .../snapshots/<sha>/config.json
        return Path(cached).parent.name
    return revision


def _hub_offline() -> bool:
    from huggingface_hub import constants

    # The environment too: huggingface_hub reads HF_HUB_OFFLINE once, when first imported.
    from_env = os.environ.get("HF_HUB_OFFLINE", "").upper() in {"1", "ON", "YES", "TRUE"}
    return bool(constants.HF_HUB_OFFLINE) or from_env


def load_processor(model: str, revision: str | None = None, trust_remote_code: bool = False):
    """The model's processor (a tokenizer for a text-only model).

    Without torchvision, transformers cannot build a video processor, and processors
    of video-capable families (Qwen2.5-VL, LLaVA-OneVision, ...) refuse to load. Then
    the same processor class is loaded without its video part: it takes frames as
    images, which is all a CPU machine without torchvision can do anyway.
    """
    from transformers import AutoProcessor

    try:
        return AutoProcessor.from_pretrained(model, revision=revision, trust_remote_code=trust_remote_code)
    except ImportError as e:
        if "torchvision" not in str(e).lower():
            raise
        log.info("%s: no torchvision, loading its processor for images only", model)
        return _images_only_processor(model, revision, trust_remote_code)


def _images_only_processor(model: str, revision: str | None, trust_remote_code: bool):
    """The model's processor class minus its video processor (see load_processor)."""
    from transformers.models.auto.processing_auto import processor_class_from_name

    name = _processor_class_name(model, revision)
    cls = processor_class_from_name(name) if name else None
    if cls is None:
        raise ImportError(f"{model}: its processor ({name or 'unknown'}) needs torchvision, which is not installed")

    class ImagesOnly(cls):
        # The processor's parts are the __init__ arguments named after a modality; leave
        # the video ones out, and from_pretrained neither loads nor requires them.
        @classmethod
        def get_attributes(klass):
            return [a for a in super().get_attributes() if "video" not in a]

    ImagesOnly.__name__ = ImagesOnly.__qualname__ = cls.__name__
    return ImagesOnly.from_pretrained(model, revision=revision, trust_remote_code=trust_remote_code)


def processor_or_not_found(model: str, revision: str | None, trust_remote_code: bool):
    try:
        return load_processor(model, revision, trust_remote_code)
    except (OSError, ValueError) as e:
        # A config but no tokenizer files (an incomplete upload): transformers says
        # "Unrecognized processing class"; any other ValueError is not ours to rename.
        if isinstance(e, ValueError) and "Unrecognized processing class" not in str(e):
            raise
        raise ModelNotFound(f"model {model} has no processor or tokenizer that can be loaded: "
                            f"{first_line(e)}") from e


def _processor_class_name(model: str, revision: str | None) -> str | None:
    import json

    from transformers.utils import cached_file

    for filename in ("processor_config.json", "preprocessor_config.json", "tokenizer_config.json"):
        found = cached_file(model, filename, revision=revision, _raise_exceptions_for_missing_entries=False)
        if found:
            name = json.loads(Path(found).read_text(encoding="utf-8")).get("processor_class")
            if name:
                return name
    return None


def takes_video(processor) -> bool:
    """Whether the processor has a video part (needs a video-capable family and torchvision)."""
    return getattr(processor, "video_processor", None) is not None
