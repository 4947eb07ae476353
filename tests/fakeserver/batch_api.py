"""The OpenAI Batch API on a :class:`~tests.fakeserver.server.FakeOpenAI`, for ``--batch`` tests.

Endpoints: ``POST /files`` (multipart, purpose ``batch``), ``POST /batches``,
``GET /batches/{id}`` and ``GET /files/{id}/content``. A job answers each line
of its input through the server's own responder — the same script that answers
live requests, so a test scripts first attempts and repairs in one place — once
it has been polled ``polls_until_done`` times; lines are recorded as calls of the
server (so the repairs that follow are attributed to attempt 2 as usual) and
listed in ``line_calls``. ``final_status`` lets a job end ``failed``/``expired``
without output, ``garbage_lines`` appends lines that are not answers.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.fakeserver.server import Answer, Call, Fail, FakeOpenAI, completion_body


@dataclass
class BatchAPI:
    polls_until_done: int = 2
    final_status: str = "completed"
    garbage_lines: tuple[bytes, ...] = ()
    missing: bool = False  # the endpoint has no Batch API: 404 on every route
    files: dict[str, bytes] = field(default_factory=dict)
    jobs: dict[str, dict[str, Any]] = field(default_factory=dict)
    polls: dict[str, int] = field(default_factory=dict)
    line_calls: list[Call] = field(default_factory=list)
    uploads: int = 0
    created: int = 0
    _ids: Any = field(default_factory=itertools.count)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def handle(self, server: FakeOpenAI, handler: Any, method: str, body: bytes) -> bool:
        path = handler.path.split("?")[0].rstrip("/")
        tail = path.split("/v1", 1)[-1]
        if not (tail.startswith("/files") or tail.startswith("/batches")):
            return False
        if self.missing:
            handler._json(404, {"error": {"message": f"no route {handler.path}"}})
            return True
        parts = tail.strip("/").split("/")
        with self._lock:
            if method == "POST" and parts == ["files"]:
                handler._json(200, self._upload(handler.headers.get("Content-Type", ""), body))
            elif method == "POST" and parts == ["batches"]:
                handler._json(200, self._create(json.loads(body or b"{}")))
            elif method == "GET" and len(parts) == 2 and parts[0] == "batches":
                handler._json(200, self._poll(server, parts[1]))
            elif method == "GET" and len(parts) == 3 and parts[0] == "files" \
                    and parts[2] == "content":
                handler._bytes(200, self.files[parts[1]], content_type="application/jsonl")
            else:
                handler._json(404, {"error": {"message": f"no route {handler.path}"}})
        return True

    def _upload(self, content_type: str, body: bytes) -> dict[str, Any]:
        message = email.parser.BytesParser(policy=email.policy.default).parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
        data = b""
        for part in message.iter_parts():
            if part.get_param("name", header="content-disposition") == "file":
                data = part.get_payload(decode=True) or b""
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = data
        self.uploads += 1
        return {"id": file_id, "object": "file", "bytes": len(data), "created_at": 0,
                "filename": "input.jsonl", "purpose": "batch"}

    def _create(self, request: dict[str, Any]) -> dict[str, Any]:
        job_id = f"batch_{next(self._ids)}"
        lines = self.files[request["input_file_id"]].splitlines()
        self.jobs[job_id] = {"id": job_id, "object": "batch", "endpoint": request["endpoint"],
                             "input_file_id": request["input_file_id"],
                             "completion_window": request["completion_window"],
                             "status": "validating", "created_at": 0, "output_file_id": None,
                             "error_file_id": None,
                             "request_counts": {"total": len(lines), "completed": 0,
                                                "failed": 0}}
        self.polls[job_id] = 0
        self.created += 1
        return self.jobs[job_id]

    def _poll(self, server: FakeOpenAI, job_id: str) -> dict[str, Any]:
        job = self.jobs[job_id]
        self.polls[job_id] += 1
        if job["status"] in ("completed", "failed", "expired", "cancelled"):
            return job
        if self.polls[job_id] < self.polls_until_done:
            job["status"] = "in_progress"
            return job
        if self.final_status != "completed":
            job["status"] = self.final_status
            return job
        out = [self._answer(server, json.loads(line))
               for line in self.files[job["input_file_id"]].splitlines()]
        output_id = f"file-{next(self._ids)}"
        self.files[output_id] = b"".join(json.dumps(o).encode() + b"\n" for o in out) + \
            b"".join(g + b"\n" for g in self.garbage_lines)
        failed = sum(1 for o in out if o["response"]["status_code"] != 200)
        job.update(status="completed", output_file_id=output_id,
                   request_counts={"total": len(out), "completed": len(out) - failed,
                                   "failed": failed})
        return job

    def _answer(self, server: FakeOpenAI, line: dict[str, Any]) -> dict[str, Any]:
        body = line["body"]
        call = server.record(body, "batch")
        self.line_calls.append(call)
        reply = server.responder(call)
        if isinstance(reply, Answer):
            server.answered(call, reply.text)
            response = {"status_code": 200, "request_id": "req", "body":
                        completion_body(reply, body.get("model", ""))}
        elif isinstance(reply, Fail):
            response = {"status_code": reply.status, "request_id": "req",
                        "body": {"error": {"message": reply.message, "type": "scripted"}}}
        else:
            response = {"status_code": 500, "request_id": "req",
                        "body": {"error": {"message": "not scripted for a batch"}}}
        return {"id": f"line-{call.hit}", "custom_id": line["custom_id"],
                "response": response, "error": None}
