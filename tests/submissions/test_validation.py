"""Model-id and prediction-file validation (submissions/validation.py).

The rules run on huggingface_hub's own `ModelInfo` objects built from API-shaped
payloads (what GET /api/models/<id>/revision/<rev> returns), served by a fake
HubClient; `HubClient` itself is exercised over real HTTP against a small local server
that answers like the Hub; and against the real Hub when HF_TOKEN is set.
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import httpx2
import pytest
from huggingface_hub import HfApi, ModelInfo
from huggingface_hub.utils import hf_raise_for_status

from space_config.settings import ModelRules, get_settings
from submissions.errors import Refused
from submissions.validation import (
    HubClient,
    ModelForm,
    is_blocked,
    validate_model,
    validate_predictions,
)

SHA = "3f1c2b4a5d6e7f8091a2b3c4d5e6f708192a3b4c"
TAG_SHA = "0123456789abcdef0123456789abcdef01234567"
LLAMA_CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64}


def model_payload(model_id: str = "acme/vid-7b", sha: str = SHA, **changes) -> dict:
    """What the Hub's model API answers for a public, licensed 7.6B safetensors model."""
    payload = {
        "_id": "6650f0c0a1b2c3d4e5f60718",
        "id": model_id,
        "author": model_id.split("/")[0],
        "sha": sha,
        "lastModified": "2025-05-01T10:00:00.000Z",
        "createdAt": "2025-04-01T10:00:00.000Z",
        "private": False,
        "gated": False,
        "disabled": False,
        "downloads": 1234,
        "likes": 56,
        "library_name": "transformers",
        "pipeline_tag": "video-text-to-text",
        "tags": ["transformers", "safetensors", "llama", "video-text-to-text", "license:apache-2.0"],
        "cardData": {"license": "apache-2.0", "language": ["en"]},
        "config": {"architectures": ["LlamaForCausalLM"], "model_type": "llama"},
        "safetensors": {"parameters": {"BF16": 7_615_616_512}, "total": 7_615_616_512},
        "siblings": [
            {"rfilename": ".gitattributes", "size": 1519, "blobId": "a" * 40},
            {"rfilename": "README.md", "size": 4120, "blobId": "b" * 40},
            {"rfilename": "config.json", "size": 663, "blobId": "c" * 40},
            {"rfilename": "model.safetensors", "size": 15_231_233_024, "blobId": "d" * 40,
             "lfs": {"size": 15_231_233_024, "sha256": "e" * 64, "pointerSize": 135}},
        ],
    }
    payload.update(changes)
    return {k: v for k, v in payload.items() if v is not None}


def hub_error(code: str, status: int = 404) -> Exception:
    """The exception huggingface_hub itself raises for a Hub answer with this X-Error-Code."""
    request = httpx2.Request("GET", "https://huggingface.co/api/models/x/revision/main")
    response = httpx2.Response(status, headers={"X-Error-Code": code} if code else {}, request=request)
    try:
        hf_raise_for_status(response)
    except Exception as e:  # noqa: BLE001 - we want whatever the library raises
        return e
    raise AssertionError(f"no error raised for {status} {code}")


class FakeHub(HubClient):
    """Models by id: each has revisions (name -> API payload) and a config (None: no config.json)."""

    def __init__(self):
        super().__init__(api=HfApi(token=False))  # never used: both calls are overridden
        self.models: dict[str, dict] = {}
        self.calls: list[tuple] = []
        self.failure: Exception | None = None  # raised by every call, e.g. the Hub being down

    def add(self, payload: dict, config: dict | None = LLAMA_CONFIG, revisions: dict[str, dict] | None = None):
        self.models[payload["id"].lower()] = {"revisions": {"main": payload, payload["sha"]: payload,
                                                            **(revisions or {})}, "config": config}
        return payload

    def model_info(self, repo_id: str, revision: str) -> ModelInfo:
        self.calls.append(("model_info", repo_id, revision))
        if self.failure:
            raise self.failure
        model = self.models.get(repo_id.lower())
        if model is None:
            raise hub_error("RepoNotFound", 401)
        if revision not in model["revisions"]:
            raise hub_error("RevisionNotFound")
        return ModelInfo(**json.loads(json.dumps(model["revisions"][revision])))

    def config(self, repo_id: str, sha: str) -> dict:
        self.calls.append(("config", repo_id, sha))
        config = self.models[repo_id.lower()]["config"]
        if config is None:
            raise hub_error("EntryNotFound")
        return json.loads(json.dumps(config))


@pytest.fixture
def hub() -> FakeHub:
    fake = FakeHub()
    fake.add(model_payload())
    return fake


RULES = ModelRules()


def form(**fields) -> ModelForm:
    return ModelForm.model_validate({"model": "acme/vid-7b", **fields})


def refused(form_: ModelForm, hub: HubClient, rules: ModelRules = RULES) -> str:
    with pytest.raises(Refused) as caught:
        validate_model(form_, rules, hub)
    assert caught.value.reason == "validation"
    return str(caught.value)


# -- accepted ------------------------------------------------------------------------------

def test_valid_model_is_accepted_with_its_revision_resolved_to_a_commit(hub):
    model = validate_model(form(precision="float16"), RULES, hub)
    assert model.model == "acme/vid-7b"
    assert model.sha == SHA and model.revision == "main"
    assert model.params == 7_615_616_512 and round(model.params_billions, 2) == 7.62
    assert model.license == "apache-2.0"
    assert model.architecture == "LlamaForCausalLM" and model.model_type == "llama"
    assert model.precision == "float16"
    assert ("config", "acme/vid-7b", SHA) in hub.calls  # the config is read at the pinned commit


def test_a_tag_resolves_to_the_commit_it_points_at(hub):
    hub.add(model_payload(), revisions={"v1.0": model_payload(sha=TAG_SHA)})
    model = validate_model(form(revision="v1.0"), RULES, hub)
    assert model.sha == TAG_SHA and model.revision == "v1.0"


def test_the_hubs_spelling_of_the_id_is_kept(hub):
    model = validate_model(form(model="ACME/Vid-7B"), RULES, hub)
    assert model.model == "acme/vid-7b"


def test_a_license_given_only_as_a_tag_is_enough(hub):
    hub.add(model_payload(cardData={"language": ["en"]}, tags=["transformers", "license:mit"]))
    assert validate_model(form(), RULES, hub).license == "mit"


def test_a_model_type_transformers_knows_is_enough_without_architectures(hub):
    hub.add(model_payload(), config={"model_type": "qwen2_vl"})
    model = validate_model(form(), RULES, hub)
    assert model.architecture == "qwen2_vl" and model.model_type == "qwen2_vl"


# -- refused, one rule at a time ---------------------------------------------------------------

def test_unknown_model_is_refused_as_not_found(hub):
    message = refused(form(model="acme/no-such-model"), hub)
    assert "No model 'acme/no-such-model' on the Hugging Face Hub" in message
    assert "private models cannot be evaluated" in message


def test_unknown_revision_is_refused(hub):
    message = refused(form(revision="v9"), hub)
    assert "has no revision 'v9'" in message


def test_malformed_id_is_refused_before_asking_the_hub(hub):
    message = refused(form(model="acme/vid/7b"), hub)
    assert "is not a Hugging Face model id" in message and "org/name" in message
    assert hub.calls == []


def test_private_model_is_refused_unless_allowed(hub):
    hub.add(model_payload(private=True))
    assert "'acme/vid-7b' is private" in refused(form(), hub)
    assert validate_model(form(), ModelRules(allow_private=True), hub).sha == SHA


def test_gated_model_is_refused_unless_allowed(hub):
    hub.add(model_payload(gated="manual"))
    message = refused(form(), hub)
    assert "is gated (manual approval)" in message and "prediction file" in message
    assert validate_model(form(), ModelRules(allow_private=True), hub).sha == SHA


def test_missing_config_is_refused(hub):
    hub.add(model_payload(), config=None)
    message = refused(form(), hub)
    assert "has no config.json at commit 3f1c2b4a5d6e" in message


def test_remote_code_is_refused_unless_the_architecture_is_allowed(hub):
    custom = {"architectures": ["VidChatModel"], "model_type": "vidchat",
              "auto_map": {"AutoConfig": "configuration_vidchat.VidChatConfig",
                           "AutoModel": "modeling_vidchat.VidChatModel"}}
    hub.add(model_payload(), config=custom)
    message = refused(form(), hub)
    assert "needs its own Python code to load" in message and "'auto_map'" in message
    assert "VidChatModel" in message  # says what a maintainer would have to allow
    allowed = ModelRules(remote_code_allowed=("VidChatModel",))
    assert validate_model(form(), allowed, hub).architecture == "VidChatModel"


def test_auto_map_is_refused_even_for_an_architecture_transformers_knows(hub):
    hub.add(model_payload(), config=LLAMA_CONFIG | {"auto_map": {"AutoModelForCausalLM": "modeling.MyLlama"}})
    assert "needs its own Python code" in refused(form(), hub)


def test_architecture_unknown_to_transformers_is_refused_unless_allowed(hub):
    hub.add(model_payload(), config={"architectures": ["TotallyNewVideoLM"], "model_type": "llama"})
    message = refused(form(), hub)
    assert "transformers does not know the architecture TotallyNewVideoLM" in message
    allowed = ModelRules(remote_code_allowed=("TotallyNewVideoLM",))
    assert validate_model(form(), allowed, hub).architecture == "TotallyNewVideoLM"


def test_config_without_architectures_or_known_type_is_refused(hub):
    hub.add(model_payload(), config={"hidden_size": 8})
    assert "has no 'architectures' and no 'model_type'" in refused(form(), hub)


def test_model_without_license_is_refused(hub):
    hub.add(model_payload(cardData={"language": ["en"]}, tags=["transformers", "safetensors"]))
    message = refused(form(), hub)
    assert "declares no license" in message and "license: apache-2.0" in message


def test_model_without_safetensors_metadata_is_refused(hub):
    hub.add(model_payload(safetensors=None, siblings=[{"rfilename": "pytorch_model.bin"}]))
    message = refused(form(), hub)
    assert "parameter count of 'acme/vid-7b' is unknown" in message and ".safetensors" in message


def test_model_above_the_parameter_limit_is_refused(hub):
    hub.add(model_payload(safetensors={"parameters": {"BF16": 123_400_000_000}, "total": 123_400_000_000}))
    message = refused(form(), hub)
    assert "has 123.4B parameters" in message and "at most 80B" in message
    assert validate_model(form(), ModelRules(max_params_billions=130), hub).params == 123_400_000_000


@pytest.mark.parametrize("entry", ["acme/vid-7b", "ACME/VID-7B", "acme/*"])
def test_blocked_models_are_refused_without_asking_the_hub(hub, entry):
    message = refused(form(), hub, ModelRules(blocked=(entry,)))
    assert "on the block list" in message
    assert hub.calls == []


def test_a_renamed_repo_is_blocked_under_its_new_id_too(hub):
    hub.models["old-org/vid-7b"] = hub.models["acme/vid-7b"]  # the Hub redirects the old name
    assert "'acme/vid-7b' cannot be submitted" in refused(form(model="old-org/vid-7b"), hub,
                                                          ModelRules(blocked=("acme/*",)))


def test_block_list_matching():
    assert is_blocked("Org/Model", ("org/model",))
    assert is_blocked("org/anything", ("other/x", "org/*"))
    assert not is_blocked("org2/model", ("org/*",))
    assert not is_blocked("org/model-2", ("org/model",))


def test_unknown_precision_is_refused(hub):
    message = refused(form(precision="int3"), hub)
    assert "Unknown precision 'int3'" in message and "bfloat16, float16, float32" in message
    assert hub.calls == []


@pytest.mark.parametrize("failure", [hub_error("", 503), httpx2.ConnectError("connection refused")])
def test_hub_down_is_refused_with_a_try_again_message(hub, failure):
    hub.failure = failure
    message = refused(form(), hub)
    assert "Could not check 'acme/vid-7b' on the Hugging Face Hub right now" in message
    assert "try again" in message and "nothing counts against your quota" in message


# -- the form ---------------------------------------------------------------------------------

def test_form_drops_unknown_keys_and_a_forged_submitter():
    parsed = ModelForm.parse({"model": "acme/vid-7b", "submitter": "mallory", "status": "FINISHED",
                              "metadata": {"submitter": "mallory", "model_type": "instruct"}})
    assert "submitter" not in parsed.model_dump() and "status" not in parsed.model_dump()
    assert parsed.metadata == {"model_type": "instruct"}
    assert not hasattr(parsed, "submitter")


def test_form_defaults_and_blanks():
    parsed = ModelForm.parse({"model": " https://huggingface.co/acme/vid-7b/ ", "revision": "", "frames": ""})
    assert (parsed.model, parsed.revision, parsed.precision, parsed.frames, parsed.thinking) == \
        ("acme/vid-7b", "main", "bfloat16", None, False)
    assert ModelForm.parse({"model": "a/b", "frames": 64.0, "thinking": True}).frames == 64


@pytest.mark.parametrize("fields, field", [({"frames": 0}, "frames"), ({"frames": 1025}, "frames"),
                                           ({"frames": 8.5}, "frames"), ({"model": ""}, "model"),
                                           ({"metadata": {"bad key!": "x"}}, "metadata")])
def test_form_refuses_bad_fields_naming_them(fields, field):
    with pytest.raises(Refused) as caught:
        ModelForm.parse({"model": "acme/vid-7b", **fields})
    assert caught.value.reason == "validation"
    assert f"{field}:" in str(caught.value)


# -- prediction files -------------------------------------------------------------------------

def test_prediction_file_is_validated_by_the_core_with_line_numbers(demo_suite, tmp_path):
    suite, _ = demo_suite
    good_id = suite.calls[0].id
    path = tmp_path / "my-preds.jsonl"
    path.write_text(json.dumps({"id": good_id, "response": "A"}) + "\n"
                    + json.dumps({"id": "nope/0", "response": "B"}) + "\n"
                    + "{not json\n")
    settings = get_settings()
    with pytest.raises(Refused) as caught:
        validate_predictions(path, suite, settings)
    message = str(caught.value)
    assert caught.value.reason == "bad_predictions"
    assert "line 2: unknown call id 'nope/0'" in message and "line 3: not valid JSON" in message
    assert message.startswith("my-preds.jsonl:") and str(tmp_path) not in message  # no server paths

    path.write_text(json.dumps({"id": good_id, "response": "A"}) + "\n")
    responses = validate_predictions(path, suite, settings)
    assert list(responses.by_id) == [good_id]
    assert validate_predictions(path, suite.calls_by_id(), settings).by_id.keys() == {good_id}


def test_oversize_prediction_file_is_refused(demo_suite, tmp_path):
    import dataclasses

    suite, _ = demo_suite
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"id": suite.calls[0].id, "response": "A" * 5000}) + "\n")
    small = dataclasses.replace(get_settings(), max_prediction_bytes=1000)
    with pytest.raises(Refused, match="the limit is") as caught:
        validate_predictions(path, suite, small)
    assert caught.value.reason == "bad_predictions"


# -- HubClient over real HTTP, against a local server answering like the Hub ---------------------

class _HubHandler(BaseHTTPRequestHandler):
    payloads: ClassVar[dict[str, dict]] = {}  # "<id>@<revision>" -> model payload
    files: ClassVar[dict[str, bytes]] = {}  # "<id>@<sha>/<file>" -> bytes

    def log_message(self, *args):
        pass

    def _send(self, status: int, body: bytes = b"", headers: dict | None = None):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?")[0]
        if path.startswith("/api/models/"):
            repo, _, revision = path[len("/api/models/"):].partition("/revision/")
            if not any(key.startswith(repo + "@") for key in self.payloads):
                return self._send(401, b'{"error":"Repository not found"}', {"X-Error-Code": "RepoNotFound"})
            payload = self.payloads.get(f"{repo}@{revision}")
            if payload is None:
                return self._send(404, b'{"error":"Invalid rev id"}', {"X-Error-Code": "RevisionNotFound"})
            return self._send(200, json.dumps(payload).encode(), {"Content-Type": "application/json"})
        repo, _, rest = path.lstrip("/").partition("/resolve/")
        sha, _, name = rest.partition("/")
        body = self.files.get(f"{repo}@{sha}/{name}")
        if body is None:
            return self._send(404, b"Entry not found", {"X-Error-Code": "EntryNotFound"})
        return self._send(200, body, {"X-Repo-Commit": sha, "ETag": f'"{hash(body) & 0xffffffff:x}"'})

    do_HEAD = do_GET


@pytest.fixture
def local_hub(monkeypatch, tmp_path):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # the tests' default; this server is local
    _HubHandler.payloads = {"acme/vid-7b@main": model_payload(), f"acme/vid-7b@{SHA}": model_payload(),
                            "acme/bare@main": model_payload("acme/bare", sha=TAG_SHA)}
    _HubHandler.files = {f"acme/vid-7b@{SHA}/config.json": json.dumps(LLAMA_CONFIG).encode()}
    server = ThreadingHTTPServer(("127.0.0.1", 0), _HubHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    api = HfApi(endpoint=f"http://127.0.0.1:{server.server_port}", token=False)
    yield HubClient(api=api, cache_dir=tmp_path / "hf-cache")
    server.shutdown()
    server.server_close()


def test_hub_client_over_http_accepts_a_valid_model(local_hub):
    info = local_hub.model_info("acme/vid-7b", "main")
    assert isinstance(info, ModelInfo) and info.sha == SHA and info.safetensors.total == 7_615_616_512
    assert local_hub.card_license(info) == "apache-2.0"
    assert local_hub.config("acme/vid-7b", SHA) == LLAMA_CONFIG
    model = validate_model(form(), RULES, local_hub)
    assert (model.sha, model.architecture) == (SHA, "LlamaForCausalLM")


def test_hub_client_over_http_maps_the_hubs_errors_to_messages(local_hub):
    assert "No model 'acme/ghost' on the Hugging Face Hub" in refused(form(model="acme/ghost"), local_hub)
    assert "has no revision 'v2'" in refused(form(revision="v2"), local_hub)
    assert "has no config.json at commit 0123456789ab" in refused(form(model="acme/bare"), local_hub)


# -- the real Hub ---------------------------------------------------------------------------------

@pytest.fixture
def real_hub(monkeypatch):
    if not os.environ.get("HF_TOKEN"):
        pytest.skip("HF_TOKEN is not set: the real-Hub validation test needs a token (read access is enough)")
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    return HubClient(token=os.environ["HF_TOKEN"])


def test_real_hub_tiny_model_resolves_and_loads_its_config(real_hub):
    repo = "hf-internal-testing/tiny-random-LlamaForCausalLM"
    info = real_hub.model_info(repo, "main")
    assert len(info.sha) == 40 and real_hub.model_info(repo, info.sha).sha == info.sha
    config = real_hub.config(repo, info.sha)
    assert config["architectures"] == ["LlamaForCausalLM"]


def test_real_hub_small_licensed_model_is_accepted(real_hub):
    model = validate_model(ModelForm.parse({"model": "HuggingFaceTB/SmolLM2-135M"}), RULES, real_hub)
    assert len(model.sha) == 40 and model.sha != "main"
    assert model.license == "apache-2.0"
    assert 0.1 < model.params_billions < 0.2
    assert model.architecture == "LlamaForCausalLM"


def test_real_hub_unknown_model_is_refused(real_hub):
    message = refused(ModelForm.parse({"model": "hf-internal-testing/this-model-does-not-exist-8d1f"}), real_hub)
    assert "No model" in message
