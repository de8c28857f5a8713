"""A scripted stand-in for DeepSeek's chat-completions API, on loopback only, for driving real DSH headless.

DSH's `@deepseek-ai/dsh-llm-deepseek` adapter POSTs to `<baseURL>/chat/completions` with `stream: true` and
parses OpenAI-style SSE: `choices[0].delta.{content, reasoning_content, tool_calls[{index, id, function}]}`,
`finish_reason`, then `data: [DONE]`. Point it here with `DEEPSEEK_BASE_URL=http://127.0.0.1:<port>`.

The script (JSON) is a list of tool calls, `[{"name": "mcp__knit__knit_docs", "arguments": {...}}, ...]`. A
conversation request is answered with the call whose index equals the number of tool results already in the
request; once every call has a result, the answer is text that quotes the last tool result, so DSH's stdout
carries it. Requests without tools (the session-title request) get a short title. Every request is appended
to a JSON-lines log (headers included) for inspection.

The server stops by itself after `--max-requests` requests or `--idle` seconds without one.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FINAL_PREFIX = "TOOL RESULT:\n"


def _sse(payload) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return f"data: {data}\n\n".encode()


def _chunk(delta: dict, finish: str | None = None) -> dict:
    return {"id": "mock", "object": "chat.completion.chunk", "model": "mock",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _tool_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def reply(body: dict, script: list[dict]) -> list:
    """The SSE payloads answering one request."""
    messages = body.get("messages") or []
    if not body.get("tools"):
        return [_chunk({"role": "assistant", "content": "Mock session"}), _chunk({}, "stop"), "[DONE]"]
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    results = [m for m in messages[last_user + 1:] if m.get("role") == "tool"]
    if len(results) < len(script):
        step = script[len(results)]
        call = {"index": 0, "id": f"call_mock_{len(results) + 1}", "type": "function",
                "function": {"name": step["name"], "arguments": json.dumps(step.get("arguments", {}))}}
        return [_chunk({"role": "assistant", "content": None, "tool_calls": [call]}), _chunk({}, "tool_calls"),
                "[DONE]"]
    text = FINAL_PREFIX + (_tool_text(results[-1]) if results else "no tool was called")
    return [_chunk({"role": "assistant", "content": text}), _chunk({}, "stop"), "[DONE]"]


def make_server(script: list[dict], log_path: str | None, max_requests: int) -> ThreadingHTTPServer:
    lock = threading.Lock()
    state = {"count": 0, "last": time.monotonic()}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            with lock:
                state["count"] += 1
                state["last"] = time.monotonic()
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            if not self.path.endswith("/chat/completions"):
                self.send_response(404)
                self.end_headers()
                return
            payloads = reply(body, script)
            if log_path:
                record = {"t": time.time(), "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()
                                                                           if k.lower() != "authorization"},
                          "body": body, "answer": payloads[0]}
                with lock, open(log_path, "a", encoding="utf-8") as out:
                    out.write(json.dumps(record) + "\n")
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            for payload in payloads:
                self.wfile.write(_sse(payload))
            self.wfile.flush()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.state = state
    server.max_requests = max_requests
    return server


def serve_bounded(server: ThreadingHTTPServer, idle: float) -> None:
    """Serve until the request budget is spent or nothing came for `idle` seconds."""
    server.timeout = 0.2
    while server.state["count"] < server.max_requests and time.monotonic() - server.state["last"] < idle:
        server.handle_request()
    server.server_close()


def start_in_thread(script: list[dict], log_path: str | None = None, max_requests: int = 50,
                    idle: float = 120.0) -> tuple[ThreadingHTTPServer, threading.Thread]:
    server = make_server(script, log_path, max_requests)
    thread = threading.Thread(target=serve_bounded, args=(server, idle), daemon=True)
    thread.start()
    return server, thread


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", required=True, help="JSON list of tool calls, or @file")
    parser.add_argument("--log", help="append every request here (JSON lines)")
    parser.add_argument("--port-file", help="write the chosen port here")
    parser.add_argument("--max-requests", type=int, default=50)
    parser.add_argument("--idle", type=float, default=120.0)
    args = parser.parse_args()
    if args.script.startswith("@"):
        with open(args.script[1:], encoding="utf-8") as handle:
            text = handle.read()
    else:
        text = args.script
    server = make_server(json.loads(text), args.log, args.max_requests)
    port = server.server_address[1]
    if args.port_file:
        with open(args.port_file, "w") as out:
            out.write(str(port))
    print(port, flush=True)
    serve_bounded(server, args.idle)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
