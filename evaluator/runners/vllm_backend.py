"""VllmBackend: offline vLLM, one generate call per list of requests.

Native video (frames + timing metadata), prefix caching, tensor parallel inside an
engine, data parallel as one engine per GPU group in its own process. The prompt
dicts, engine and sampling arguments are built by vllm_inputs.py (pure, tested without
vLLM); vllm and torch are imported when an engine starts, not with this module.
"""

from __future__ import annotations

import atexit
import importlib
import multiprocessing
import os
from contextlib import contextmanager
from typing import Any

from evaluator.runners import costs, hub, vllm_inputs as vi  # costs: what each generate measured (last_stats)
from evaluator.runners.generation import SAMPLING_NOTE, VIDEO_INPUTS, GenRequest


class VllmBackend:
    """Offline vLLM: the whole list of requests in one generate call (vLLM batches it).

    The engine is created on the first generate, so limit_mm_per_prompt can default to
    exactly what the requests need (pass it to cover a whole suite). Data parallel:
    `data_parallel_size` engines in their own processes, each on its own
    `tensor_parallel_size` GPUs, each given a contiguous run of the (video-ordered)
    requests (vLLM's own LLM(data_parallel_size=k) is not supported offline).
    """

    name = "vllm"

    def __init__(self, model: str, revision: str | None = None, tensor_parallel_size: int = 1,
                 data_parallel_size: int = 1, max_model_len: int | None = None, max_new_tokens: int = 512,
                 limit_mm_per_prompt: dict[str, int] | None = None, video_input: str = "auto",
                 dtype: str = "auto", gpu_memory_utilization: float = 0.9, trust_remote_code: bool = False,
                 engine_kwargs: dict[str, Any] | None = None, engine_module: str = "vllm"):
        if video_input not in VIDEO_INPUTS:
            raise ValueError(f"video_input must be one of {', '.join(VIDEO_INPUTS)}, not {video_input!r}")
        if tensor_parallel_size < 1 or data_parallel_size < 1:
            raise ValueError("tensor_parallel_size and data_parallel_size must be at least 1")
        self.model_id, self.revision = str(model), revision
        self.max_new_tokens = max_new_tokens
        self.tensor_parallel_size, self.data_parallel_size = tensor_parallel_size, data_parallel_size
        self.limit_mm_per_prompt = dict(limit_mm_per_prompt) if limit_mm_per_prompt else None
        self.engine_module = engine_module  # tests put a stand-in for vllm here
        self._engine_options = {
            "max_model_len": max_model_len, "dtype": dtype, "gpu_memory_utilization": gpu_memory_utilization,
            "trust_remote_code": trust_remote_code, "extra": dict(engine_kwargs or {}),
        }
        hub.check_model(self.model_id, revision, trust_remote_code)
        # The processor renders the chat template (vLLM expands the placeholders) and
        # tells whether the model takes video.
        self.processor = hub.processor_or_not_found(self.model_id, revision, trust_remote_code)
        self.multimodal = hasattr(self.processor, "image_processor")
        self.model_takes_video = hub.takes_video(self.processor)
        if video_input == "video" and not self.model_takes_video:
            raise ValueError(f"{self.model_id}: video_input='video' but its processor takes no video")
        self.video = self.model_takes_video and video_input != "images"
        self.render = _single_bos(vi.chat_renderer(self.processor), getattr(self.processor, "tokenizer",
                                                                            self.processor))
        self._engine = None
        self.settings: dict[str, Any] = self._describe()

    def _describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model_id,
            "revision": self.revision,
            "dtype": self._engine_options["dtype"],
            "default_max_new_tokens": self.max_new_tokens,  # for requests that bring no budget of their own
            "sampling": SAMPLING_NOTE,
            "video_input": "video" if self.video else ("images" if self.multimodal else "text"),
            "tensor_parallel_size": self.tensor_parallel_size,
            "data_parallel_size": self.data_parallel_size,
            "max_model_len": self._engine_options["max_model_len"],
            "limit_mm_per_prompt": self.limit_mm_per_prompt,
            "prefix_caching": True,
        }

    def generate(self, requests: list[GenRequest]) -> list[str]:
        if not requests:
            return []
        if not self.multimodal and any(r.frames for r in requests):
            raise ValueError(f"{self.model_id} is a text-only model; it cannot take frames")
        if self._engine is None:
            if self.limit_mm_per_prompt is None:
                # A text-only model (a judge) gets no limit: vLLM knows it takes no media.
                self.limit_mm_per_prompt = (vi.default_mm_limits(requests, self.video, self.model_takes_video)
                                            if self.multimodal else {})
            self._engine = self._start_engine()
            self.settings = self._describe()
        vi.check_mm_limits(requests, self.video, self.limit_mm_per_prompt)
        inputs = vi.build_vllm_inputs(requests, self.render, self.video)
        replies, self.last_stats = self._engine.generate(inputs, vi.request_sampling(requests, self.max_new_tokens))
        if len(replies) != len(requests):
            raise RuntimeError(f"vLLM returned {len(replies)} replies for {len(requests)} requests")
        return [r.strip() for r in replies]

    def engine_kwargs(self) -> dict[str, Any]:
        """vllm.LLM(...) arguments of one engine."""
        return vi.engine_kwargs(self.model_id, self.revision, tensor_parallel_size=self.tensor_parallel_size,
                                limit_mm_per_prompt=self.limit_mm_per_prompt, **self._engine_options)

    def _start_engine(self):
        if self.data_parallel_size == 1:
            return _Engine(self.engine_module, self.engine_kwargs())
        return _ReplicaPool(self.engine_module, self.engine_kwargs(), self.data_parallel_size,
                            self.tensor_parallel_size)

    def close(self) -> None:
        """Stop data-parallel replica processes (an in-process engine is left to the GC)."""
        if isinstance(self._engine, _ReplicaPool):
            self._engine.close()
        self._engine = None


def _single_bos(render: vi.Render, tokenizer) -> vi.Render:
    """vLLM tokenizes a text prompt with the tokenizer's special tokens; a chat template
    that already wrote BOS would then give two. Drop the template's one in that case."""
    bos = getattr(tokenizer, "bos_token", None)
    adds_bos = bool(bos) and tokenizer.bos_token_id in tokenizer("a")["input_ids"][:1]
    if not adds_bos:
        return render

    def render_once(messages: list[dict]) -> str:
        text = render(messages)
        return text[len(bos):] if text.startswith(bos) else text

    render_once.has_template = getattr(render, "has_template", True)  # type: ignore[attr-defined]
    return render_once


class _Engine:
    """One vllm.LLM in this process."""

    def __init__(self, module: str, kwargs: dict[str, Any]):
        vllm = importlib.import_module(module)
        self.sampling_params = vllm.SamplingParams
        with _memory_errors("starting the vLLM engine"):
            self.llm = vllm.LLM(**kwargs)

    def generate(self, inputs: list[dict], sampling: list[dict[str, Any]]) -> tuple[list[str], list[costs.GenStats]]:
        """One reply per input; `sampling`: one SamplingParams argument dict per input."""
        with _memory_errors("generating"):
            outputs = self.llm.generate(inputs, [self.sampling_params(**s) for s in sampling], use_tqdm=False)
        return [o.outputs[0].text for o in outputs], [costs.vllm_stats(o) for o in outputs]


_MEMORY_WORDS = ("out of memory", "no available memory for the cache blocks", "not enough kv cache")


@contextmanager
def _memory_errors(doing: str):
    """Re-raise vLLM's ways of saying "out of GPU memory" (torch's OutOfMemoryError, or a
    ValueError/RuntimeError from the engine) as MemoryError, which the worker reports
    with the reason out_of_memory."""
    try:
        yield
    except MemoryError:
        raise
    except Exception as e:
        text = str(e).lower()
        if "OutOfMemory" in type(e).__name__ or any(w in text for w in _MEMORY_WORDS):
            raise MemoryError(f"vLLM ran out of GPU memory while {doing}: {hub.first_line(e)}") from e
        raise


def _visible_gpus() -> list[str]:
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        return [g.strip() for g in visible.split(",") if g.strip()]
    import torch

    return [str(i) for i in range(torch.cuda.device_count())]


def replica_gpus(gpus: list[str], replicas: int, per_replica: int) -> list[list[str]]:
    """GPU ids of each data-parallel replica: consecutive groups of `per_replica`."""
    if len(gpus) < replicas * per_replica:
        raise ValueError(f"data_parallel_size={replicas} x tensor_parallel_size={per_replica} needs "
                         f"{replicas * per_replica} GPUs, {len(gpus)} visible ({','.join(gpus) or 'none'})")
    return [gpus[r * per_replica:(r + 1) * per_replica] for r in range(replicas)]


def _replica_main(conn, module: str, kwargs: dict[str, Any], gpus: list[str]) -> None:
    """A data-parallel replica: its own engine on its own GPUs, answering batches from the parent.

    Messages back are ("ready", None), ("ok", replies) or ("error", (exception type, message)).
    """
    os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(gpus)  # before vllm/torch see the devices
    try:
        engine = _Engine(module, kwargs)
    except BaseException as e:  # noqa: BLE001 - reported to the parent, which raises it
        conn.send(("error", (type(e).__name__, str(e))))
        return
    conn.send(("ready", None))
    while True:
        try:
            message = conn.recv()
        except EOFError:  # the parent is gone
            return
        if message is None:
            return
        try:
            conn.send(("ok", engine.generate(*message)))
        except BaseException as e:  # noqa: BLE001
            conn.send(("error", (type(e).__name__, str(e))))


class _ReplicaPool:
    """`replicas` engines in spawned processes; generate splits the requests contiguously."""

    def __init__(self, module: str, kwargs: dict[str, Any], replicas: int, per_replica: int,
                 gpus: list[str] | None = None):
        context = multiprocessing.get_context("spawn")  # CUDA cannot be forked
        self.conns, self.processes = [], []
        for group in replica_gpus(gpus if gpus is not None else _visible_gpus(), replicas, per_replica):
            parent, child = context.Pipe()
            # Not daemonic: a vLLM engine starts processes of its own, which daemons may not.
            process = context.Process(target=_replica_main, args=(child, module, kwargs, group))
            process.start()
            self.conns.append(parent)
            self.processes.append(process)
        atexit.register(self.close)
        try:
            for rank, conn in enumerate(self.conns):
                self._receive(conn, rank)
        except BaseException:
            self.close()
            raise

    def generate(self, inputs: list[dict], sampling: list[dict[str, Any]]) -> tuple[list[str], list[costs.GenStats]]:
        bounds = vi.shard_bounds(len(inputs), len(self.conns))
        for conn, (start, end) in zip(self.conns, bounds):
            conn.send((inputs[start:end], sampling[start:end]))
        answers = [self._receive(conn, rank) for rank, conn in enumerate(self.conns[:len(bounds)])]
        return [t for texts, _ in answers for t in texts], [s for _, stats in answers for s in stats]

    @staticmethod
    def _receive(conn, rank: int):
        status, payload = conn.recv()
        if status == "error":
            kind, text = payload
            message = f"vLLM data-parallel replica {rank}: {kind}: {text}"
            # The worker reports out-of-memory by exception type (worker/run.py: classify).
            memory = kind == "MemoryError" or "OutOfMemory" in kind
            raise MemoryError(message) if memory else RuntimeError(message)
        return payload

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send(None)
            except (OSError, EOFError):
                pass
        for process in self.processes:
            process.join(timeout=30)
            if process.is_alive():
                process.terminate()
        self.conns, self.processes = [], []
