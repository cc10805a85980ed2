"""What the task services refuse with: a status, words a user can act on, and the fields at fault."""

from __future__ import annotations

from ..errors import TaskError
from ..store.ids import shown_id

__all__ = ['TaskError', 'field_error', 'not_found']


def field_error(field: str, message: str, status: int = 422) -> TaskError:
    """A refusal of one input field (`body.<field>`)."""
    return TaskError(status, message, fields=[{'location': f'body.{field}', 'message': message}])


def not_found(what: str, task_id: str) -> TaskError:
    return TaskError(404, f'No {what} with id {shown_id(task_id)}.')
