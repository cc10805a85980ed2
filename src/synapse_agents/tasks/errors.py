"""What the task services refuse with: a status, words a user can act on, and the fields at fault."""

from __future__ import annotations

from typing import Any


class TaskError(Exception):
    """A refusal of the task services; the HTTP API answers it with `status`, the CLI prints it."""

    def __init__(self, status: int, message: str, *, fields: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.fields = fields or []


def field_error(field: str, message: str, status: int = 422) -> TaskError:
    """A refusal of one input field (`body.<field>`)."""
    return TaskError(status, message, fields=[{'location': f'body.{field}', 'message': message}])


def not_found(what: str, task_id: str) -> TaskError:
    from ..store.ids import shown_id

    return TaskError(404, f'No {what} with id {shown_id(task_id)}.')
