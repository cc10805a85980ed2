"""The playground and the history as a plugin: the agents, chat, conversation and attachment
routes and the dashboard's Agents and History areas."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..plugins.hookspecs import DashboardArea, hookimpl

if TYPE_CHECKING:
    from fastapi import APIRouter


@hookimpl
def register_routes() -> Sequence[APIRouter]:
    """The agents (their tools and MCP servers), a turn's stream, the conversations, what filled each
    prompt, the attachments."""
    from ..web.routes import agents, attachments, chat, conversations, mcp, model_tools, prompt_context

    return [
        agents.router,
        model_tools.router,
        mcp.router,
        chat.router,
        conversations.router,
        prompt_context.router,
        attachments.router,
    ]


@hookimpl
def register_dashboard_areas() -> Sequence[DashboardArea]:
    """Agents (the playground) and History."""

    return [
        DashboardArea(name='agents', path='/', label='Agents'),
        DashboardArea(name='history', path='/history', label='History'),
    ]
