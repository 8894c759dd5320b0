"""Tests for evaluator.runners.backends (transformers_backend, vllm_backend, hub) and vllm_inputs: tiny random VLMs of two families
(Qwen2.5-VL, Gemma 3) built here from configs and run for real on CPU; vLLM request
building and engine arguments with a stand-in vllm module (vLLM is not installed here);
ModelNotFound; the LLM judge served by a backend, pinned to a revision."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from evaluator.errors import EvaluatorError
from evaluator.runners import backends, hub, vllm_backend, vllm_inputs as vi
from evaluator.runners.backends import GenRequest, ModelNotFound, load_backend
from evaluator.runners.generation import SAMPLING_NOTE

from tiny_models import build_tiny_judge
from tiny_vlms import build_tiny_gemma3, build_tiny_qwen25vl

REPO = Path(__file__).resolve().parents[2]
HAS_TORCHVISION = importlib.util.find_spec("torchvision") is not None

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")


def frames(n: int, seed: int, size: tuple[int, int] = (64, 96)) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (*size, 3), dtype=np.uint8) for _ in range(n)]


def mixed_requests() -> list[GenRequest]:
    """Requests of every shape a run sends: clips of several lengths, one frame, text only."""
    return [
        GenRequest("Which material is handled in this step of the experiment?", frames(4, 1),
                   [0.0, 0.5, 1.0, 1.5], as_video=True),
        GenRequest("Answer with one letter.", frames(2, 2), [3.0, 4.0], as_video=True),
        GenRequest("A question with no picture at all, answered from the text alone.", []),
        GenRequest("What does the card show? " * 4, frames(1, 3), [7.0], system="Answer briefly."),
        GenRequest("Which step comes next?", frames(4, 4), [0.0, 1.0, 2.0, 3.0], as_video=True),
        GenRequest("Short.", []),
    ]


@pytest.fixture(scope="module")
def tiny_dirs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny-vlms")
    return {"qwen25vl": build_tiny_qwen25vl(root / "qwen25vl"), "gemma3": build_tiny_gemma3(root / "gemma3")}


@pytest.fixture(scope="module")
def loaded(tiny_dirs) -> dict[str, backends.TransformersBackend]:
    return {family: load_backend("transformers", str(path), None, batch_size=3, max_new_tokens=5, device="cpu")
            for family, path in tiny_dirs.items()}


# --- the tiny models ------------------------------------------------------------------

def test_tiny_vlms_load_offline_with_their_families_classes(tiny_dirs):
    from transformers import AutoModelForImageTextToText, AutoProcessor

    qwen = AutoModelForImageTextToText.from_pretrained(tiny_dirs["qwen25vl"])
    gemma = AutoModelForImageTextToText.from_pretrained(tiny_dirs["gemma3"])
    assert type(qwen).__name__ == "Qwen2_5_VLForConditionalGeneration"
    assert type(gemma).__name__ == "Gemma3ForConditionalGeneration"

    gemma_processor = AutoProcessor.from_pretrained(tiny_dirs["gemma3"])
    assert type(gemma_processor).__name__ == "Gemma3Processor"
    assert type(gemma_processor.tokenizer).__name__ == "GemmaTokenizer"
    qwen_processor = backends.load_processor(str(tiny_dirs["qwen25vl"]))
    assert type(qwen_processor).__name__ == "Qwen2_5_VLProcessor"
    assert type(qwen_processor.tokenizer).__name__ == "Qwen2Tokenizer"
    # The full processor (with video) where torchvision exists; images only where it does not.
    assert hub.takes_video(qwen_processor) == HAS_TORCHVISION
    # Prompts stay short: the tokenizers were trained on the project's prompt files.
    prompt = "Watch the video and answer the multiple-choice question below."
    assert len(qwen_processor.tokenizer(prompt)["input_ids"]) < len(prompt) // 4
    assert len(gemma_processor.tokenizer(prompt)["input_ids"]) < len(prompt) // 4


# --- TransformersBackend --------------------------------------------------------------

@pytest.mark.parametrize("family", ["qwen25vl", "gemma3"])
def test_batched_generation_equals_one_by_one(loaded, family, monkeypatch):
    backend = loaded[family]
    requests = mixed_requests()
    batches = []
    forward = backend._forward

    def counted_forward(reqs, mode):
        batches.append((mode, len(reqs)))
        return forward(reqs, mode)

    monkeypatch.setattr(backend, "_forward", counted_forward)

    replies = backend.generate(requests)

    assert len(replies) == len(requests) and all(isinstance(r, str) for r in replies)
    assert any(size > 1 for _, size in batches), "nothing was batched"
    assert all(size <= backend.batch_size for _, size in batches)
    # Clips go in as one video only where the processor takes video (torchvision installed).
    video = family == "qwen25vl" and HAS_TORCHVISION
    assert {mode for mode, _ in batches} == {"text", "images"} | ({"video"} if video else set())
    # Left padding: a reply does not depend on what it was batched with.
    assert [backend.generate([r])[0] for r in requests] == replies
    # Replies follow request order, whatever the batching order was.
    assert backend.generate(requests[::-1]) == replies[::-1]


def test_a_request_with_a_temperature_is_sampled_with_its_seed(loaded):
    """Sampling follows the request (a benchmark's protocol): the same seed draws the same
    reply, other seeds draw others; greedy requests in the same list stay greedy."""
    backend = loaded["qwen25vl"]
    text = [r for r in mixed_requests() if not r.frames][0]
    greedy = backend.generate([text])[0]

    def drawn(seed: int) -> str:
        return backend.generate([dataclasses.replace(text, temperature=1.0, seed=seed, max_new_tokens=8), text])[0]

    first = drawn(1)
    assert drawn(1) == first  # seeded: a rerun draws the same
    assert len({drawn(s) for s in range(2, 8)} | {first}) > 1  # a tiny random model at temperature 1 varies
    assert backend.generate([dataclasses.replace(text, temperature=1.0, seed=1, max_new_tokens=8), text])[1] \
        == greedy  # the greedy request beside it is untouched


def test_decoding_is_greedy_whatever_the_checkpoint_suggests(loaded, monkeypatch):
    backend = loaded["qwen25vl"]
    requests = mixed_requests()[:3]
    greedy = backend.generate(requests)
    config = backend.model.generation_config
    for name, value in {"do_sample": True, "temperature": 5.0, "top_k": 3, "repetition_penalty": 3.0}.items():
        monkeypatch.setattr(config, name, value)
    assert backend.generate(requests) == greedy


@pytest.mark.parametrize("family", ["qwen25vl", "gemma3"])
def test_every_frame_reaches_the_model(loaded, family):
    backend = loaded[family]
    requests = [GenRequest("Which step?", frames(n, n), [float(t) for t in range(n)]) for n in (1, 3)]
    encoded = backend._encode(requests, "images")
    tokenizer = backend.tokenizer
    if family == "gemma3":
        image_token = tokenizer.image_token_id  # 4 tokens per image (pooled 2x2)
        per_row = [int((row == image_token).sum()) for row in encoded["input_ids"]]
        assert per_row == [4, 12]
        assert tuple(encoded["pixel_values"].shape) == (4, 3, 28, 28)
    else:
        pad = tokenizer.convert_tokens_to_ids("<|image_pad|>")
        per_row = [int((row == pad).sum()) for row in encoded["input_ids"]]
        grids = encoded["image_grid_thw"]  # one (t, h, w) patch grid per image, 2x2 merged
        assert len(grids) == 4
        tokens_per_frame = int(grids[0].prod()) // 4
        assert per_row == [tokens_per_frame, 3 * tokens_per_frame]
    # Left padding: the shorter prompt is padded at the start, not the end.
    assert encoded["attention_mask"][0, 0] == 0 and encoded["attention_mask"][0, -1] == 1


def test_settings_are_recorded(loaded, tiny_dirs):
    settings = loaded["qwen25vl"].settings
    assert settings == {
        "backend": "transformers", "model": str(tiny_dirs["qwen25vl"]), "revision": None, "dtype": "float32",
        "device": "cpu", "batch_size": 3, "default_max_new_tokens": 5,
        "video_input": "video" if HAS_TORCHVISION else "images",
        **({"video_processor_kwargs": {"cap_pixels_per_frame": True}} if HAS_TORCHVISION else {}),
        "sampling": SAMPLING_NOTE, "model_class": "Qwen2_5_VLForConditionalGeneration",
        "processor_class": "Qwen2_5_VLProcessor",
    }
    gemma = loaded["gemma3"].settings
    assert gemma["video_input"] == "images" and gemma["model_class"] == "Gemma3ForConditionalGeneration"


def test_text_only_model_serves_text_requests_and_refuses_frames(tmp_path):
    path = build_tiny_judge(tmp_path / "silent", silent=True)
    backend = load_backend("transformers", str(path), None, max_new_tokens=3, batch_size=2, device="cpu")
    assert backend.settings["video_input"] == "text" and backend.settings["model_class"] == "LlamaForCausalLM"
    # The silent model always picks token 0, "B": a known reply through the chat template.
    assert backend.generate([GenRequest("the answer is"), GenRequest("yes no")]) == ["B B B", "B B B"]
    with pytest.raises(ValueError, match="text-only"):
        backend.generate([GenRequest("look", frames(1, 0), [0.0])])


def test_out_of_memory_batches_are_split_and_single_requests_raise(loaded, monkeypatch):
    backend = loaded["gemma3"]
    requests = [r for r in mixed_requests() if r.frames]
    expected = [backend.generate([r])[0] for r in requests]
    sizes = []
    forward = backend._forward

    def forward_small_batches_only(reqs, mode):
        sizes.append(len(reqs))
        if len(reqs) > 1:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        return forward(reqs, mode)

    monkeypatch.setattr(backend, "_forward", forward_small_batches_only)
    assert backend.generate(requests) == expected
    assert sizes[0] == 3 and sizes.count(1) == len(requests)

    monkeypatch.setattr(backend, "_forward", lambda reqs, mode: (_ for _ in ()).throw(torch.OutOfMemoryError("oom")))
    with pytest.raises(torch.OutOfMemoryError):
        backend.generate(requests[:1])


@pytest.mark.skipif(not HAS_TORCHVISION, reason="native video input needs torchvision (GPU workers)")
def test_video_input_carries_the_clip_timing(loaded):
    backend = loaded["qwen25vl"]
    clip = GenRequest("What happens?", frames(4, 9), [10.0, 10.5, 11.0, 11.5], as_video=True)
    encoded = backend._encode([clip], "video")
    assert "pixel_values_videos" in encoded and "pixel_values" not in encoded
    # 2 frames per temporal patch at the sampled 2 fps: one second per patch.
    assert encoded["second_per_grid_ts"].tolist() == [1.0]
    requests = mixed_requests()
    assert backend.generate(requests) == [backend.generate([r])[0] for r in requests]


def test_video_input_option_is_checked(tiny_dirs):
    with pytest.raises(ValueError, match="video_input"):
        load_backend("transformers", str(tiny_dirs["gemma3"]), None, video_input="film")
    with pytest.raises(ValueError, match="takes no video"):
        load_backend("transformers", str(tiny_dirs["gemma3"]), None, video_input="video")
    images = load_backend("transformers", str(tiny_dirs["qwen25vl"]), None, video_input="images")
    assert images.settings["video_input"] == "images" and not images.video


# --- load_backend and ModelNotFound ------------------------------------------------------

def test_missing_models_raise_model_not_found_naming_them(tmp_path):
    missing = tmp_path / "no-such-model"
    for kind in ("transformers", "vllm", "auto"):
        with pytest.raises(ModelNotFound, match=str(missing)) as info:
            load_backend(kind, str(missing), None)
        assert isinstance(info.value, EvaluatorError)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelNotFound, match="no config.json"):
        load_backend("transformers", str(tmp_path / "empty"), None)
    (tmp_path / "weights-only").mkdir()
    (tmp_path / "weights-only" / "config.json").write_text('{"model_type": "llama"}')
    with pytest.raises(ModelNotFound, match="no processor or tokenizer"):
        load_backend("transformers", str(tmp_path / "weights-only"), None)
    # A hub id that is neither reachable (offline in tests) nor cached.
    with pytest.raises(ModelNotFound, match="nobody/no-such-vlm at revision abc"):
        load_backend("transformers", "nobody/no-such-vlm", "abc")


def test_load_backend_kinds_and_options(tiny_dirs):
    with pytest.raises(ValueError, match="backend must be one of"):
        load_backend("tensorrt", str(tiny_dirs["gemma3"]), None)
    # vLLM-only options are dropped for transformers (a shared configuration carries both) ...
    backend = load_backend("auto" if not backends.vllm_usable() else "transformers", str(tiny_dirs["gemma3"]),
                           None, tensor_parallel_size=2, max_model_len=4096, batch_size=2)
    assert isinstance(backend, backends.TransformersBackend) and backend.batch_size == 2
    # ... but a misspelt option is an error.
    with pytest.raises(TypeError, match="batchsize"):
        load_backend("transformers", str(tiny_dirs["gemma3"]), None, batchsize=2)


def test_importing_backends_needs_no_torch():
    code = ("import sys, evaluator.runners.backends, evaluator.runners.vllm_inputs; "
            "print(sorted({'torch', 'transformers', 'vllm'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- request building (both backends) --------------------------------------------------

def test_clip_metadata_describes_the_sampled_clip():
    meta = vi.clip_metadata([12.0, 12.5, 13.0, 13.5])
    assert meta == {"fps": 2.0, "frames_indices": [0, 1, 2, 3], "total_num_frames": 4, "duration": 2.0,
                    "video_backend": "pyav"}
    # transformers' VideoMetadata reads the sampled rate back from these fields.
    from transformers.video_utils import VideoMetadata

    assert VideoMetadata(**meta).sampled_fps == 2.0
    assert vi.clip_metadata([5.0])["fps"] == 1.0 and vi.clip_metadata([5.0, 5.0])["total_num_frames"] == 2
    assert vi.clip_metadata([0.0, 0.25, 0.5])["fps"] == 4.0


def test_chat_messages_put_pictures_before_the_question():
    request = GenRequest("Why?", frames(3, 0), [0.0, 1.0, 2.0], system="Be brief.", as_video=True)
    assert vi.chat_messages(request, vi.VIDEO) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "video"}, {"type": "text", "text": "Why?"}]},
    ]
    images = vi.chat_messages(request, vi.IMAGES)[1]["content"]
    assert images == [{"type": "image"}] * 3 + [{"type": "text", "text": "Why?"}]
    assert vi.chat_messages(GenRequest("Hi"), vi.TEXT) == [{"role": "user", "content": "Hi"}]
    assert [vi.request_mode(request, v) for v in (True, False)] == [vi.VIDEO, vi.IMAGES]
    assert vi.request_mode(GenRequest("x", frames(2, 0), [0, 1]), True) == vi.IMAGES  # not asked as video
    assert vi.request_mode(GenRequest("x"), True) == vi.TEXT


def test_build_vllm_inputs_video_images_and_text(tiny_dirs):
    render = vi.chat_renderer(backends.load_processor(str(tiny_dirs["qwen25vl"])))
    clip = GenRequest("What happens next?", frames(4, 5), [1.0, 1.5, 2.0, 2.5], as_video=True)
    still = GenRequest("What is on the card?", frames(1, 6), [9.0])
    text = GenRequest("No pictures.", system="Be brief.")

    video_inputs = vi.build_vllm_inputs([clip, still, text], render, video=True)
    first = video_inputs[0]
    assert first["prompt"] == ("<|im_start|>user\n<|vision_start|><|video_pad|><|vision_end|>What happens next?"
                               "<|im_end|>\n<|im_start|>assistant\n")
    [(array, meta)] = first["multi_modal_data"]["video"]
    assert array.shape == (4, 64, 96, 3) and array.dtype == np.uint8
    assert np.array_equal(array[2], clip.frames[2])
    assert meta == {"fps": 2.0, "frames_indices": [0, 1, 2, 3], "total_num_frames": 4, "duration": 2.0,
                    "video_backend": "pyav", "do_sample_frames": False}
    assert first["mm_processor_kwargs"] == {"do_sample_frames": False}
    assert video_inputs[1]["prompt"].count("<|image_pad|>") == 1
    assert np.array_equal(video_inputs[1]["multi_modal_data"]["image"][0], still.frames[0])
    assert video_inputs[2] == {"prompt": "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nNo pictures."
                                         "<|im_end|>\n<|im_start|>assistant\n"}

    # A backend without video input shows the same clip as four images.
    [as_images] = vi.build_vllm_inputs([clip], render, video=False)
    assert as_images["prompt"].count("<|vision_start|><|image_pad|><|vision_end|>") == 4
    assert len(as_images["multi_modal_data"]["image"]) == 4 and "mm_processor_kwargs" not in as_images


def test_video_frames_must_share_one_size():
    mixed = frames(1, 0, (64, 96)) + frames(1, 1, (32, 48))
    with pytest.raises(ValueError, match="different sizes"):
        vi.build_vllm_inputs([GenRequest("x", mixed, [0.0, 1.0], as_video=True)], lambda m: "p")


def test_mm_limits_are_exactly_what_requests_need():
    requests = [GenRequest("a", frames(5, 0), [0, 1, 2, 3, 4], as_video=True), GenRequest("b", frames(1, 0), [0.0]),
                GenRequest("c")]
    assert vi.default_mm_limits(requests, video=True, model_takes_video=True) == {"image": 1, "video": 1}
    assert vi.default_mm_limits(requests, video=False, model_takes_video=True) == {"image": 5, "video": 0}
    assert vi.default_mm_limits(requests, video=False, model_takes_video=False) == {"image": 5}
    vi.check_mm_limits(requests, False, {"image": 5})
    with pytest.raises(ValueError, match="limit_mm_per_prompt"):
        vi.check_mm_limits(requests, False, {"image": 4})


def test_engine_and_sampling_arguments():
    assert vi.sampling_kwargs(64) == {"temperature": 0.0, "max_tokens": 64, "repetition_penalty": 1.0}
    # sampling: plain temperature (top-k and top-p off, whatever the checkpoint says), seeded
    assert vi.sampling_kwargs(32, 1.0, 7) == {"temperature": 1.0, "max_tokens": 32, "repetition_penalty": 1.0,
                                              "top_p": 1.0, "top_k": -1, "seed": 7}
    each = vi.request_sampling([GenRequest("a"), GenRequest("b", temperature=0.1, max_new_tokens=9, seed=3)], 64)
    assert each == [vi.sampling_kwargs(64), vi.sampling_kwargs(9, 0.1, 3)]
    kwargs = vi.engine_kwargs("org/m", "sha1", tensor_parallel_size=2, max_model_len=32768,
                              limit_mm_per_prompt={"video": 1, "image": 1}, extra={"max_num_batched_tokens": 65536})
    assert kwargs == {
        "model": "org/m", "revision": "sha1", "tokenizer_revision": "sha1", "tensor_parallel_size": 2,
        "dtype": "auto", "gpu_memory_utilization": 0.9, "seed": 0, "trust_remote_code": False,
        "enable_prefix_caching": True, "max_model_len": 32768, "limit_mm_per_prompt": {"video": 1, "image": 1},
        "max_num_batched_tokens": 65536,
    }
    assert "max_model_len" not in vi.engine_kwargs("m", None)


def test_shards_are_contiguous_and_even():
    assert vi.shard_bounds(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert vi.shard_bounds(2, 4) == [(0, 1), (1, 2)]
    assert vi.shard_bounds(0, 2) == [(0, 0)]
    assert backends.replica_gpus(["0", "1", "2", "3"], 2, 2) == [["0", "1"], ["2", "3"]]
    with pytest.raises(ValueError, match="needs 4 GPUs, 3 visible"):
        backends.replica_gpus(["0", "1", "2"], 2, 2)


# --- VllmBackend with a stand-in vllm module --------------------------------------------

FAKE_VLLM = textwrap.dedent('''
    """A stand-in for vllm: records what it is given, answers from the prompt."""
    import json
    import os

    created = []     # LLM(...) keyword arguments, one per engine
    generated = []   # (inputs, sampling params) per generate call


    class SamplingParams:
        def __init__(self, **kwargs):
            self.kwargs = kwargs


    class _Completion:
        def __init__(self, text):
            self.text = text


    class _Output:
        def __init__(self, text):
            self.outputs = [_Completion(text)]


    class OutOfMemoryError(RuntimeError):
        pass


    class LLM:
        def __init__(self, **kwargs):
            created.append(kwargs)
            self.gpus = os.environ.get("CUDA_VISIBLE_DEVICES", "")

        def generate(self, inputs, sampling_params, use_tqdm=True):
            assert len(sampling_params) == len(inputs)  # one SamplingParams per request
            [kwargs] = {json.dumps(s.kwargs, sort_keys=True) for s in sampling_params}  # (these tests: all alike)
            generated.append((inputs, json.loads(kwargs)))
            if any("explode" in i["prompt"] for i in inputs):
                raise OutOfMemoryError("CUDA out of memory (simulated)")
            media = [len(i.get("multi_modal_data", {}).get("image", [])) for i in inputs]
            return [_Output(f" gpu{self.gpus} n{n} {i['prompt']!r} ") for i, n in zip(inputs, media)]
''')


@pytest.fixture
def fake_vllm(tmp_path, monkeypatch):
    """A module `fake_vllm` importable here and in spawned replica processes."""
    (tmp_path / "fake_vllm.py").write_text(FAKE_VLLM)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("fake_vllm", None)
    import fake_vllm

    yield fake_vllm
    sys.modules.pop("fake_vllm", None)


def test_vllm_backend_one_engine_one_generate_call_per_list(tiny_dirs, fake_vllm, monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setattr(hub, "takes_video", lambda processor: True)  # as on a GPU worker
    backend = backends.VllmBackend(str(tiny_dirs["qwen25vl"]), None, max_new_tokens=16, max_model_len=8192,
                                   engine_module="fake_vllm")
    assert fake_vllm.created == []  # the engine starts with the first generate
    requests = mixed_requests()
    replies = backend.generate(requests)

    [kwargs] = fake_vllm.created
    assert kwargs["model"] == str(tiny_dirs["qwen25vl"]) and kwargs["max_model_len"] == 8192
    assert kwargs["tensor_parallel_size"] == 1 and kwargs["enable_prefix_caching"] is True
    assert kwargs["limit_mm_per_prompt"] == {"image": 1, "video": 1}  # exactly what these requests need
    [(inputs, sampling)] = fake_vllm.generated
    assert sampling == {"temperature": 0.0, "max_tokens": 16, "repetition_penalty": 1.0}
    assert [i["prompt"] for i in inputs] == [i["prompt"] for i in vi.build_vllm_inputs(requests, backend.render)]
    assert ["video" in i.get("multi_modal_data", {}) for i in inputs] == [True, True, False, False, True, False]
    # Replies in request order, stripped.
    assert replies == [f"gpu n{1 if r.frames and not r.as_video else 0} {i['prompt']!r}"
                       for r, i in zip(requests, inputs)]
    assert backend.settings["limit_mm_per_prompt"] == {"image": 1, "video": 1}
    assert backend.settings["video_input"] == "video" and backend.settings["sampling"] == SAMPLING_NOTE

    backend.generate(requests[:2])
    assert len(fake_vllm.created) == 1 and len(fake_vllm.generated) == 2  # same engine
    with pytest.raises(ValueError, match="limit_mm_per_prompt"):  # 2 images > the engine's limit of 1
        backend.generate([GenRequest("two stills", frames(2, 0), [0.0, 1.0])])
    # The engine's out-of-memory reaches the worker as MemoryError (reason out_of_memory).
    with pytest.raises(MemoryError, match="out of GPU memory"):
        backend.generate([GenRequest("explode")])


def test_vllm_backend_images_only_model(tiny_dirs, fake_vllm):
    backend = backends.VllmBackend(str(tiny_dirs["gemma3"]), None, engine_module="fake_vllm",
                                   limit_mm_per_prompt={"image": 8})
    replies = backend.generate(mixed_requests())
    [kwargs] = fake_vllm.created
    assert kwargs["limit_mm_per_prompt"] == {"image": 8} and backend.settings["video_input"] == "images"
    [(inputs, _)] = fake_vllm.generated
    assert inputs[0]["prompt"].count("<start_of_image>") == 4 and len(inputs[0]["multi_modal_data"]["image"]) == 4
    assert replies[0].startswith("gpu n4")


def test_vllm_backend_data_parallel_replicas(tiny_dirs, fake_vllm, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,5,6,7")
    backend = backends.VllmBackend(str(tiny_dirs["gemma3"]), None, data_parallel_size=2, tensor_parallel_size=2,
                                   engine_module="fake_vllm", limit_mm_per_prompt={"image": 4})
    try:
        requests = [GenRequest(f"question {k}", frames(1, k), [float(k)]) for k in range(5)]
        replies = backend.generate(requests)
        # Contiguous shards: the first 3 requests on GPUs 4,5, the last 2 on GPUs 6,7, in order.
        assert [r.split()[0] for r in replies] == ["gpu4,5"] * 3 + ["gpu6,7"] * 2
        assert [f"question {k}<end_of_turn>" in r for k, r in enumerate(replies)] == [True] * 5
        # A replica's out-of-memory reaches the worker as MemoryError (reason out_of_memory).
        with pytest.raises(MemoryError, match="replica 1"):
            backend.generate(requests[:3] + [GenRequest("explode", frames(1, 0), [0.0])])
    finally:
        backend.close()
    assert backend.settings["data_parallel_size"] == 2 and backend.settings["tensor_parallel_size"] == 2


def test_vllm_prompts_never_carry_two_bos():
    class Tokenizer:  # adds BOS itself, like Llama's or Gemma's
        bos_token, bos_token_id = "<s>", 1

        def __call__(self, text):
            return {"input_ids": [1, 7]}

    render = vllm_backend._single_bos(lambda messages: "<s>[INST] hi [/INST]", Tokenizer())
    assert render([]) == "[INST] hi [/INST]"
    Tokenizer.__call__ = lambda self, text: {"input_ids": [7]}  # one that does not
    assert vllm_backend._single_bos(lambda messages: "<s>x", Tokenizer())([]) == "<s>x"


# --- the LLM judge through the backends -----------------------------------------------

def test_llm_judge_on_the_vllm_backend(tmp_path, fake_vllm, monkeypatch):
    from evaluator.judges import JudgeRequest, LLMJudge, fill_prompt, load_prompt

    monkeypatch.setitem(sys.modules, "vllm", fake_vllm)
    path = str(build_tiny_judge(tmp_path / "judge", silent=True))
    judge = LLMJudge(path, backend="vllm", max_new_tokens=4)
    request = JudgeRequest("blank", "Cells were washed in ____.", "PBS", "saline")
    [judgement] = judge.judge([request])

    [kwargs] = fake_vllm.created
    assert kwargs["model"] == path and "limit_mm_per_prompt" not in kwargs  # text only: no media reserved
    [(inputs, sampling)] = fake_vllm.generated
    prompt = fill_prompt(load_prompt("blank"), request.question, request.gold, request.prediction)
    assert inputs == [{"prompt": f"<|user|> {prompt} <|end|> <|assistant|> "}]  # the judge's chat template
    assert sampling["max_tokens"] == 4 and sampling["temperature"] == 0.0
    assert judgement.judge_id == f"llm:{path}@local" and judgement.raw.startswith("gpu n0")


def _cache_snapshot(cache: Path, repo: str, sha: str, files_from: Path) -> None:
    """A Hugging Face cache entry for `repo` at commit `sha`, as a download would leave it."""
    folder = cache / f"models--{repo.replace('/', '--')}"
    snapshot = folder / "snapshots" / sha
    snapshot.mkdir(parents=True)
    for f in files_from.iterdir():
        (snapshot / f.name).write_bytes(f.read_bytes())
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text(sha)


def test_llm_judge_pins_a_hub_model_to_its_commit_and_records_it(tmp_path, monkeypatch):
    from huggingface_hub import constants

    from evaluator.judges import INCORRECT, JudgeRequest, LLMJudge

    sha = "0123456789abcdef0123456789abcdef01234567"
    _cache_snapshot(tmp_path / "hub", "tiny-org/silent-judge", sha, build_tiny_judge(tmp_path / "m", silent=True))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    assert backends.resolve_revision("tiny-org/silent-judge") == sha  # offline: the cached commit
    assert backends.resolve_revision("tiny-org/silent-judge", "v1.0") == "v1.0"  # not in the cache: as given

    judge = LLMJudge("tiny-org/silent-judge", backend="transformers", max_new_tokens=2, device="cpu")
    assert judge.judge_id == f"llm:tiny-org/silent-judge@{sha}"
    judgements = judge.judge([JudgeRequest("simpleqa", "Which city?", "Paris", "Lyon")])
    assert [(j.label, j.judge_id, j.raw) for j in judgements] == [(INCORRECT, judge.judge_id, "B B")]
