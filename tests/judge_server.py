"""A local OpenAI-compatible chat-completions server for judge tests: real HTTP, scripted.

    with JudgeServer() as server:
        judge = get_judge("openai:grader-1", base_url=server.url + "/v1", api_key="sk-test")

It answers POST .../chat/completions (any prefix: "/v1", or "/<provider>/v1" as the
Hugging Face router routes Inference Providers). The verdict follows the prompt: a
prediction that contains the gold gets "A" (simpleqa) or "yes" (blank), else "B" / "no".
A prediction may carry directives, run once per distinct prompt and attempt:

    [[500x2]]        answer 500 to the first two tries, then normally (any status: [[401]])
    [[429:1x1]]      answer 429 with Retry-After: 1 to the first try
    [[slow:3]]       wait 3 seconds before answering (a client timeout)
    [[garbage]]      reply with text that is no grade
    [[empty]]        a reply without choices

`requests` keeps what came: path, Authorization header, model, whether images were sent,
and the moment it arrived.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_DIRECTIVE = re.compile(r"\[\[(\d+|[a-z]+)(?::(\d+))?(?:x(\d+))?\]\]")


class JudgeServer:
    def __init__(self):
        self.requests: list[dict] = []
        self.tries: dict[str, int] = {}
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                outer._answer(self, body)

            def log_message(self, *args):  # quiet
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> JudgeServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- answering --------------------------------------------------------------------

    def _answer(self, handler, body: dict) -> None:
        content = body.get("messages", [{}])[-1].get("content", "")
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
        prompt = " ".join(p.get("text", "") for p in parts if p.get("type") == "text")
        images = sum(1 for p in parts if p.get("type") == "image_url")
        with self._lock:
            attempt = self.tries.get(prompt, 0) + 1
            self.tries[prompt] = attempt
            self.requests.append({"path": handler.path, "auth": handler.headers.get("Authorization"),
                                  "model": body.get("model"), "images": images, "at": time.monotonic(),
                                  "attempt": attempt, "temperature": body.get("temperature")})
        directive = _DIRECTIVE.search(prompt)
        if directive:
            kind, value, times = directive[1], directive[2], int(directive[3] or 10**6)
            if attempt <= times and self._misbehave(handler, kind, value):
                return
        self._send(handler, 200, self._completion(body.get("model"), self._verdict(prompt)))

    def _misbehave(self, handler, kind: str, value: str | None) -> bool:
        if kind.isdigit() and kind != "429":
            self._send(handler, int(kind), {"error": "scripted failure"})
        elif kind == "429":
            self._send(handler, 429, {"error": "rate limited"}, {"Retry-After": value or "1"})
        elif kind == "slow":
            time.sleep(float(value or 3))
            return False  # then answer normally: the client has given up by then
        elif kind == "garbage":
            self._send(handler, 200, self._completion("grader", "I would rather discuss something else."))
        elif kind == "empty":
            self._send(handler, 200, {"id": "x", "object": "chat.completion", "created": 1, "model": "grader",
                                      "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 0,
                                                               "total_tokens": 3}})
        else:
            return False
        return True

    @staticmethod
    def _verdict(prompt: str) -> str:
        """A grader that follows the prompt it is given: the gold within the prediction is
        right, unless the prompt says hedged answers are wrong and this one hedges."""
        blank = "Reference answer for the blank" in prompt
        # the last ones: the prompt's worked examples come before the case itself
        gold = re.findall(r"(?:Gold target|Reference answer for the blank being checked): (.*)", prompt)[-1:]
        said = re.findall(r"(?:Predicted answer|Predicted answer for the same blank): (.*)", prompt)[-1:]
        right = bool(gold and said and gold[0].strip().lower() in said[0].strip().lower())
        hedged = bool(said and re.search(r"\b(?:possibly|probably|maybe|I think|not sure)\b", said[0], re.I))
        if right and hedged and "A hedged answer is INCORRECT" in prompt:
            right = False
        if blank:
            return "yes" if right else "no"
        return "A" if right else "B"

    @staticmethod
    def _completion(model: str | None, text: str) -> dict:
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": f"{model}-2026-01-01",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 1, "total_tokens": 101}}

    @staticmethod
    def _send(handler, status: int, payload: dict, headers: dict | None = None) -> None:
        data = json.dumps(payload).encode()
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                handler.send_header(k, v)
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout)
