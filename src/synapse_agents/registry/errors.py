"""What the registry's services refuse: an unknown key, a duplicate, an invalid entry.

Each error carries the HTTP status the API answers with, so the routes, the CLI and a program
using the services report the same thing in the same words.
"""

from __future__ import annotations

from typing import Any


class RegistryError(Exception):
    """A registry operation refused; `status` is the HTTP status, `fields` the bad inputs."""

    def __init__(
        self,
        status: int,
        message: str,
        fields: list[dict[str, str]] | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.fields = fields
        self.code = code

    def extra(self) -> dict[str, Any]:
        """The parts of the JSON error body besides the message and the code."""
        return {'fields': self.fields} if self.fields else {}


class NotFound(RegistryError):
    """No entry with that key (404)."""

    def __init__(self, message: str) -> None:
        super().__init__(404, message)


class Duplicate(RegistryError):
    """An entry with that key exists already, or the entry is in use (409)."""

    def __init__(self, message: str) -> None:
        super().__init__(409, message)


class Invalid(RegistryError):
    """The input is invalid (422); `fields` lists each bad input as `{"location", "message"}`."""

    def __init__(
        self, message: str, fields: list[dict[str, str]] | None = None, code: str | None = None
    ) -> None:
        super().__init__(422, message, fields, code)


def invalid_field(location: str, message: str, *, code: str | None = None) -> Invalid:
    """An `Invalid` about one input: `body.preset_key: no preset with key 'x'`."""
    return Invalid(f'{location}: {message}', [{'location': location, 'message': message}], code)


def from_validation(exc: Any, prefix: str = 'body') -> Invalid:
    """An `Invalid` for a pydantic `ValidationError`, each error located under `prefix`."""
    fields = []
    for error in exc.errors():
        location = '.'.join(str(part) for part in (prefix, *error.get('loc', ())))
        message = str(error.get('msg', 'invalid')).removeprefix('Value error, ')
        fields.append({'location': location, 'message': message})
    first = fields[0] if fields else {'location': prefix, 'message': 'invalid'}
    return Invalid(f'{first["location"]}: {first["message"]}', fields)
