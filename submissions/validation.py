"""What a submission must satisfy before it is queued.

Two kinds of submission, two validators:

- a model id (`validate_model`): the model is looked up on the Hugging Face Hub through
  `HubClient` (a thin wrapper over `HfApi`, replaced by a fake in tests) and checked
  rule by rule; each refusal is a `Refused("validation", message)` whose message names
  the rule and says what to do;
- a prediction file (`validate_predictions`): the evaluator's own validator, run before
  anything is stored or counted against a quota.

`ModelForm` is what the submit form sends. It has no submitter field on purpose and
ignores unknown keys: who submits comes from the login (submissions/submit.py), so a
forged "submitter" key is simply dropped.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from huggingface_hub import HfApi, ModelInfo
from huggingface_hub.errors import (
    DisabledRepoError,
    EntryNotFoundError,
    GatedRepoError,
    HfHubHTTPError,
    HFValidationError,
    LocalEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.utils import validate_repo_id
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from evaluator.errors import PredictionFileError
from evaluator.predictions import read_predictions
from evaluator.records import Call, Responses
from space_config.settings import ModelRules, Settings
from submissions.errors import Refused

HUB_URL = "https://huggingface.co/"
# Errors that mean "the Hub could not answer" (network, 5xx, 429), not "the model is wrong":
# OSError covers HfHubHTTPError and offline mode; the HTTP client's own base error (httpx's
# in huggingface_hub 1.x/2.x) covers connection failures raised before any response.
NETWORK_ERRORS = (OSError,) + tuple(base for base in HfHubHTTPError.__mro__ if base.__name__ == "HTTPError")
MAX_METADATA_ITEMS = 10
MAX_METADATA_VALUE = 200


# -- the form ----------------------------------------------------------------------------

def clean_metadata(value: Mapping[str, str]) -> dict[str, str]:
    """Display metadata, bounded (it lands in a public file), without a "submitter" key
    that a page could show next to, or instead of, the real submitter. ValueError if bad."""
    cleaned = {str(k).strip(): str(v).strip() for k, v in value.items()
               if str(k).strip().lower() != "submitter"}
    if len(cleaned) > MAX_METADATA_ITEMS:
        raise ValueError(f"at most {MAX_METADATA_ITEMS} entries")
    for k, v in cleaned.items():
        if not re.fullmatch(r"[A-Za-z0-9_]{1,32}", k):
            raise ValueError(f"key {k[:40]!r} must be 1-32 letters, digits or underscores")
        if len(v) > MAX_METADATA_VALUE:
            raise ValueError(f"value of {k!r} is longer than {MAX_METADATA_VALUE} characters")
    return cleaned


class ModelForm(BaseModel):
    """A model-ID submission as the form sends it. No `submitter`: see the module doc."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    model: str = Field(min_length=1)
    revision: str = "main"  # a branch, tag or commit; resolved to a commit sha before queueing
    precision: str = "bfloat16"
    frames: int | None = Field(default=None, ge=1, le=1024)  # every call alike: outside the protocols
    # budget key -> frames the author declares (checked against each paper's range at submission)
    frame_budgets: dict[str, int] = Field(default_factory=dict)
    thinking: bool = False
    metadata: dict[str, str] = Field(default_factory=dict)  # shown on the site (model type, notes...)

    @field_validator("model", mode="before")
    @classmethod
    def _strip_url(cls, value: Any) -> Any:
        # People paste the model page's address; the id is what follows the host.
        if isinstance(value, str):
            value = value.strip()
            if value.startswith(HUB_URL):
                value = value[len(HUB_URL):].strip("/")
        return value

    @field_validator("revision", mode="before")
    @classmethod
    def _blank_revision(cls, value: Any) -> Any:
        return "main" if value is None or (isinstance(value, str) and not value.strip()) else value

    @field_validator("frames", mode="before")
    @classmethod
    def _blank_frames(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("frame_budgets", mode="before")
    @classmethod
    def _blank_budgets(cls, value: Any) -> Any:
        if isinstance(value, Mapping):  # a blank field of the form: no declaration
            return {k: v for k, v in value.items() if not (v is None or (isinstance(v, str) and not v.strip()))}
        return value

    @field_validator("metadata")
    @classmethod
    def _bounded_metadata(cls, value: dict[str, str]) -> dict[str, str]:
        return clean_metadata(value)

    @classmethod
    def parse(cls, form: Mapping[str, Any]) -> ModelForm:
        """The form, or Refused("validation") naming every bad field."""
        try:
            return cls.model_validate(dict(form))
        except ValidationError as e:
            problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'form'}: {err['msg']}"
                                 for err in e.errors())
            raise Refused("validation", f"The submission form has a problem: {problems}.") from None


# -- the Hub ---------------------------------------------------------------------------------

class HubClient:
    """The few Hub calls validation needs. Tests pass a subclass returning prepared
    `ModelInfo` objects; the site passes one built with its token."""

    def __init__(self, token: str | None = None, api: HfApi | None = None, cache_dir: Path | None = None):
        self.api = api or HfApi(token=token)
        self.cache_dir = cache_dir

    def model_info(self, repo_id: str, revision: str) -> ModelInfo:
        """Raises huggingface_hub's RepositoryNotFoundError, RevisionNotFoundError, ..."""
        # files_metadata: sibling sizes, so a maintainer reading the request sees what will be
        # downloaded; the safetensors parameter counts come with every model_info call.
        return self.api.model_info(repo_id, revision=revision, files_metadata=True)

    def config(self, repo_id: str, sha: str) -> dict:
        """config.json at a commit, parsed (EntryNotFoundError when the repo has none)."""
        path = self.api.hf_hub_download(repo_id, "config.json", revision=sha, cache_dir=self.cache_dir)
        return json.loads(Path(path).read_text(encoding="utf-8"))

    @staticmethod
    def card_license(info: ModelInfo) -> str | None:
        """The license declared in the model card's metadata, or a "license:" tag."""
        declared = getattr(info.card_data, "license", None) if info.card_data is not None else None
        if isinstance(declared, (list, tuple)):
            declared = ", ".join(str(x) for x in declared if x)
        if declared:
            return str(declared)
        for tag in info.tags or []:
            if tag.startswith("license:") and tag[len("license:"):]:
                return tag[len("license:"):]
        return None


@lru_cache(maxsize=1)
def known_architectures() -> frozenset[str]:
    """Every model class transformers can load without remote code: the class names in
    its auto mappings (LlamaForCausalLM, Qwen2_5_VLForConditionalGeneration, ...).
    Only name tables are read: no model code runs and torch is not needed."""
    modeling_auto = _transformers_auto("modeling_auto")

    names: set[str] = set()
    for attr in dir(modeling_auto):
        if not attr.endswith("_MAPPING_NAMES") or attr == "CONFIG_MAPPING_NAMES":
            continue
        for value in getattr(modeling_auto, attr).values():
            names.update([value] if isinstance(value, str) else value)
    return frozenset(names)


@lru_cache(maxsize=1)
def known_model_types() -> frozenset[str]:
    return frozenset(_transformers_auto("configuration_auto").CONFIG_MAPPING_NAMES)


def _transformers_auto(module: str):
    try:
        return importlib.import_module(f"transformers.models.auto.{module}")
    except ImportError as e:
        raise RuntimeError("Checking a model's architecture needs the transformers package (torch is not "
                           "needed): add `transformers` to the Space's requirements.txt.") from e


# -- model rules -------------------------------------------------------------------------------

@dataclass(frozen=True)
class ValidatedModel:
    """A model that passed every rule, pinned to the commit that was checked."""

    model: str  # the Hub's own spelling of the id (after renames and case)
    revision: str  # what the submitter asked for ("main", a tag, a sha)
    sha: str  # the commit it resolved to: what the worker evaluates
    params: int  # from the safetensors metadata
    license: str
    architecture: str | None
    model_type: str | None
    precision: str

    @property
    def params_billions(self) -> float:
        return self.params / 1e9


def _refuse(message: str) -> Refused:
    return Refused("validation", message)


def _unreachable(model: str, error: Exception) -> Refused:
    # Not the submitter's fault, and nothing was queued or counted: say so plainly.
    return _refuse(f"Could not check '{model}' on the Hugging Face Hub right now ({type(error).__name__}). "
                   f"Nothing was queued and nothing counts against your quota; please try again in a few minutes.")


def is_blocked(model: str, blocked: tuple[str, ...]) -> bool:
    """An exact id or a whole org ("org/*"), case-insensitive (the Hub ignores case in ids)."""
    model = model.lower()
    org = model.split("/")[0] + "/*" if "/" in model else None
    return any(entry.strip().lower() in (model, org) for entry in blocked)


def _check_id(model: str) -> None:
    try:
        validate_repo_id(model)
    except HFValidationError as e:
        raise _refuse(f"'{model[:100]}' is not a Hugging Face model id ({e}). Give it as 'org/name', "
                      f"as in the address huggingface.co/org/name.") from None


def _fetch_info(form: ModelForm, hub: HubClient) -> ModelInfo:
    try:
        return hub.model_info(form.model, form.revision)
    except RevisionNotFoundError:
        raise _refuse(f"'{form.model}' has no revision '{form.revision}'. Give a branch, a tag or a full "
                      f"commit sha that exists in the repository (or leave it empty for 'main').") from None
    except GatedRepoError:
        raise _refuse(f"'{form.model}' is gated on the Hub; this leaderboard only evaluates models anyone can "
                      f"download.") from None
    except RepositoryNotFoundError:
        raise _refuse(f"No model '{form.model}' on the Hugging Face Hub (or it is private). Check the spelling "
                      f"(org/name, as in its address); private models cannot be evaluated.") from None
    except DisabledRepoError:
        raise _refuse(f"'{form.model}' has been disabled on the Hugging Face Hub and cannot be "
                      f"downloaded.") from None
    except NETWORK_ERRORS as e:
        raise _unreachable(form.model, e) from None


def _check_access(info: ModelInfo, rules: ModelRules) -> None:
    if rules.allow_private:
        return
    if info.private:
        raise _refuse(f"'{info.id}' is private. Make it public to submit it: the evaluation must be "
                      f"reproducible by anyone.")
    if info.gated:
        raise _refuse(f"'{info.id}' is gated ({info.gated} approval). This leaderboard only evaluates models "
                      f"anyone can download; remove the gate or submit a prediction file instead.")


def _check_params(info: ModelInfo, rules: ModelRules) -> int:
    total = info.safetensors.total if info.safetensors is not None else None
    if not total:
        raise _refuse(f"The parameter count of '{info.id}' is unknown: the Hub has no safetensors metadata for "
                      f"this revision. Upload the weights as .safetensors files (the Hub counts the "
                      f"parameters from them).")
    if total / 1e9 > rules.max_params_billions:
        raise _refuse(f"'{info.id}' has {total / 1e9:.1f}B parameters; this leaderboard evaluates models of at "
                      f"most {rules.max_params_billions:g}B parameters.")
    return int(total)


def _fetch_config(info: ModelInfo, hub: HubClient) -> dict:
    try:
        config = hub.config(info.id, info.sha)
    except LocalEntryNotFoundError as e:  # could not connect and nothing cached
        raise _unreachable(info.id, e) from None
    except EntryNotFoundError:
        raise _refuse(f"'{info.id}' has no config.json at commit {info.sha[:12]}. The worker loads models with "
                      f"transformers, which needs one at the top of the repository.") from None
    except GatedRepoError:
        raise _refuse(f"'{info.id}' is gated and the leaderboard's token has not been granted access; "
                      f"a maintainer must request access before it can be evaluated.") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise _refuse(f"The config.json of '{info.id}' at commit {info.sha[:12]} is not valid JSON ({e}).") from None
    except NETWORK_ERRORS as e:
        raise _unreachable(info.id, e) from None
    if not isinstance(config, dict):
        raise _refuse(f"The config.json of '{info.id}' is not a JSON object.")
    return config


def _check_code(info: ModelInfo, config: dict, rules: ModelRules) -> tuple[str | None, str | None]:
    """(architecture, model_type); refused when loading would need the repo's own code.

    A config with `auto_map` points at Python files in the repo; an architecture that
    transformers does not know can only be loaded that way too. Running a submitter's
    code is allowed only for architectures a maintainer put on the allow-list."""
    architectures = [a for a in config.get("architectures") or [] if isinstance(a, str)]
    model_type = config.get("model_type") if isinstance(config.get("model_type"), str) else None
    names = architectures or ([model_type] if model_type else [])
    if names and all(n in rules.remote_code_allowed for n in names):
        return names[0], model_type
    if "auto_map" in config:
        raise _refuse(f"'{info.id}' needs its own Python code to load (its config.json has 'auto_map'), and "
                      f"only architectures a maintainer has allowed may run their own code here. {_allowed(rules)} "
                      f"Ask a maintainer to allow {names[0] if names else 'yours'}, or submit a prediction file.")
    if architectures:
        unknown = [a for a in architectures if a not in known_architectures()]
        if unknown:
            raise _refuse(f"transformers does not know the architecture {unknown[0]} of '{info.id}', so it could "
                          f"only be loaded with the repository's own code. {_allowed(rules)} Ask a maintainer to "
                          f"allow it, or submit a prediction file.")
    elif model_type not in known_model_types():
        what = f"model_type '{model_type}'" if model_type else "no 'architectures' and no 'model_type'"
        raise _refuse(f"The config.json of '{info.id}' has {what}, which transformers cannot load without the "
                      f"repository's own code. Ask a maintainer, or submit a prediction file.")
    return names[0] if names else None, model_type


def _allowed(rules: ModelRules) -> str:
    if rules.remote_code_allowed:
        return f"Allowed to run their own code here: {', '.join(rules.remote_code_allowed)}."
    return "No architecture is allowed to run its own code here at present."


def validate_model(form: ModelForm, rules: ModelRules, hub: HubClient) -> ValidatedModel:
    """Every rule a model-id submission must pass, cheapest first; the first failing one
    is raised as Refused("validation", <what is wrong and what to do>)."""
    if form.precision not in rules.precisions:
        raise _refuse(f"Unknown precision '{form.precision}'; choose one of {', '.join(rules.precisions)}.")
    if is_blocked(form.model, rules.blocked):
        raise _refuse(f"'{form.model}' cannot be submitted to this leaderboard (it is on the block list).")
    _check_id(form.model)
    info = _fetch_info(form, hub)
    if is_blocked(info.id, rules.blocked):  # a renamed repo answers under its new id
        raise _refuse(f"'{info.id}' cannot be submitted to this leaderboard (it is on the block list).")
    if not info.sha:
        raise _unreachable(form.model, RuntimeError("no commit sha in the Hub's answer"))
    _check_access(info, rules)
    license = hub.card_license(info)
    if not license:
        raise _refuse(f"'{info.id}' declares no license. Add one to the model card's metadata (for example "
                      f"'license: apache-2.0' in the README's YAML header) and submit again.")
    params = _check_params(info, rules)
    config = _fetch_config(info, hub)
    architecture, model_type = _check_code(info, config, rules)
    return ValidatedModel(model=info.id, revision=form.revision, sha=info.sha, params=params, license=license,
                          architecture=architecture, model_type=model_type, precision=form.precision)


# -- prediction files ---------------------------------------------------------------------------

def validate_predictions(path: Path, suite: Any, settings: Settings) -> Responses:
    """The evaluator's validator, with its refusal as Refused("bad_predictions").

    `suite` is an evaluator Suite or its calls by id ({call id: Call}): validation
    needs only the call list, which the submit service reads without the videos."""
    calls: Mapping[str, Call] = suite.calls_by_id() if hasattr(suite, "calls_by_id") else suite
    path = Path(path)
    try:
        return read_predictions(path, calls, settings.max_prediction_bytes)
    except PredictionFileError as e:
        # The same line-numbered message, naming the file as the submitter knows it, not
        # by the server's temporary upload path.
        shown = PredictionFileError(path.name, e.problems, e.truncated)
        raise Refused("bad_predictions", str(shown)) from None
