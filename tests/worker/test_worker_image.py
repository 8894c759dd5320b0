"""The worker image (Dockerfile) agrees with the code: nothing is built here (no Docker, no
network); the file is read and checked against the requirements, the worker's entry points
and the worker Space's card."""

from __future__ import annotations

import re
import shlex

from huggingface_hub import SpaceCard

from conftest import ROOT

# vllm pins torch exactly; read from each release's metadata on PyPI (Requires-Dist: torch==...)
VLLM_TORCH = {"0.31.0": "2.13.0", "0.32.0": "2.13.0", "0.33.0": "2.14.0"}


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) of each Dockerfile line, continuations joined."""
    text = re.sub(r"\\\n\s*", " ", (ROOT / "Dockerfile").read_text())
    return [tuple(line.split(None, 1)) for line in text.splitlines() if line.strip() and not line.startswith("#")]


def instructions(name: str) -> list[str]:
    return [args for instruction, args in dockerfile() if instruction == name]


def pins(path: str) -> dict[str, str]:
    found = {}
    for line in (ROOT / path).read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.\-\[\]]+)==([^\s#]+)", line.strip())
        if match:
            found[match.group(1).lower()] = match.group(2)
    return found


def test_the_image_starts_from_cuda_and_installs_the_worker_requirements_and_a_pinned_vllm():
    assert instructions("FROM")[0].startswith("nvidia/cuda:")
    installs = " ".join(args for args in instructions("RUN") if "pip install" in args)
    assert "-r requirements-worker.txt" in installs
    vllm = re.search(r"\bvllm==([\w.]+)", installs)
    assert vllm, "vllm must be installed at an exact version"
    # requirements-worker.txt pulls in the site's requirements: both files are in the image
    assert "-r requirements.txt" in (ROOT / "requirements-worker.txt").read_text()
    copied = " ".join(instructions("COPY"))
    assert "requirements.txt" in copied and "requirements-worker.txt" in copied
    # and vllm's own torch pin is the one requirements-worker.txt installs
    assert VLLM_TORCH[vllm.group(1)] == pins("requirements-worker.txt")["torch"]


def test_the_entry_point_is_the_worker_spaces_app_on_the_cards_port():
    card = SpaceCard.load(ROOT / "space_config/worker/README.md").data
    command = shlex.split(instructions("CMD")[-1].strip("[]").replace(",", " "))
    assert command[0] == "python" and command[1] == card.app_file and (ROOT / card.app_file).is_file()
    assert str(card.to_dict()["app_port"]) in instructions("EXPOSE")[-1].split()
    env = " ".join(instructions("ENV"))
    assert "LEADERBOARD_STORE=hub" in env and f"GRADIO_SERVER_PORT={card.to_dict()['app_port']}" in env


def test_the_jobs_command_is_one_the_worker_accepts():
    # the dispatcher runs `python -m evaluator.worker --request ID --worker-id W` in this image
    from worker.dispatch_rules import job_command
    from cli.worker import parser

    command = job_command("20250101T000000-abc", "jobs-host-1-abc123")
    assert command[:3] == ["python", "-m", "evaluator.worker"]
    args = parser().parse_args(command[3:])
    assert args.request == "20250101T000000-abc" and args.worker_id == "jobs-host-1-abc123" and not args.dispatch
