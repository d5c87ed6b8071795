"""What a request may send the web board: a JSON object of at most MAX_BODY_BYTES, and
fields of the types the endpoints read. Anything else is an ApiError, one sentence with a
4xx status.

A body over the limit is refused before it is read: a Content-Length over it at once (for
every route, by `BodyLimit`), a body without one (chunked) as soon as it passes the limit.
Both answers close the connection, so the server never reads the rest.
"""
from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import JSONResponse

MAX_BODY_BYTES = 64 * 1024
TOO_LARGE = f"the request body must be at most {MAX_BODY_BYTES} bytes."
CLOSE = {"connection": "close"}  # uvicorn would otherwise read and drop the rest of a body


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def error_response(error: ApiError) -> JSONResponse:
    return JSONResponse({"error": str(error)}, status_code=error.status,
                        headers=CLOSE if error.status == 413 else None)


class BodyLimit:
    """ASGI middleware: a request whose Content-Length is over the limit, or not a number,
    is answered 413 before any route sees it."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            declared = dict(scope["headers"]).get(b"content-length")
            if declared is not None and not (declared.isdigit() and int(declared) <= MAX_BODY_BYTES):
                await error_response(ApiError(413, TOO_LARGE))(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def json_body(request: Request) -> dict:
    """The request's JSON object ({} for an empty body)."""
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            raise ApiError(413, TOO_LARGE)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):  # bad UTF-8 is a ValueError too; deep nesting recurses
        raise ApiError(400, "the request body is not valid JSON.") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a JSON object.")
    return body


def is_whole(value) -> bool:
    """A JSON whole number (not true or false, which Python counts as 0 and 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


def choice(value, choices: dict, sentence: str):
    """choices[value] for a string key of `choices`; else a 400 with `sentence`."""
    if not isinstance(value, str) or value not in choices:
        raise ApiError(400, sentence)
    return choices[value]
