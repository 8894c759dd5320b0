# The GPU worker image: the worker Space (sdk: docker, space_config/worker/README.md) runs it; it
# can also run one request claimed elsewhere (`python -m evaluator.worker --request ID`), the
# command each Hugging Face Job of the dispatcher runs (worker/dispatch.py). A Space's own builder installs requirements.txt only (no torch, no vllm), which is why
# the worker is an image: requirements-worker.txt plus vllm, pinned to the torch that file pins
# (vllm 0.32.0 requires torch==2.13.0; tests/worker/test_worker_image.py checks the two agree).
FROM nvidia/cuda:12.8.1-cudnn-runtime-ubuntu24.04

ENV DEBIAN_FRONTEND=noninteractive PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv python3-dev git \
    && rm -rf /var/lib/apt/lists/*

# Spaces run the container as uid 1000
RUN useradd -m -u 1000 user || true
ENV VIRTUAL_ENV=/opt/venv PATH=/opt/venv/bin:$PATH HOME=/home/user
RUN python3 -m venv /opt/venv && chown -R 1000:1000 /opt/venv

WORKDIR /home/user/app
COPY --chown=1000 requirements.txt requirements-worker.txt ./
USER 1000
RUN pip install --upgrade pip && pip install -r requirements-worker.txt vllm==0.32.0
COPY --chown=1000 . .

ENV LEADERBOARD_STORE=hub LEADERBOARD_EMBEDDED_WORKER=0 GRADIO_SERVER_NAME=0.0.0.0 GRADIO_SERVER_PORT=7860
EXPOSE 7860
# The worker Space: the worker loop in the background and a status page. A Job overrides the
# command with `python -m evaluator.worker --request <id>`.
CMD ["python", "worker_app.py"]
