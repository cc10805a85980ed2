"""`GET /api/extensions`: the installed plugins and the dashboard areas, built-in and added."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from ...plugins.manager import plugin_dashboard_areas, plugin_names
from ..context import SynapseContext, get_context

router = APIRouter(tags=['extensions'])


class DashboardAreaInfo(BaseModel):
    """A nav entry of the dashboard."""

    name: str = Field(description='A slug, unique among the areas.')
    path: str = Field(description='Where the area lives in the dashboard, e.g. `/history`.')
    label: str = Field(description='What the nav entry says.')


class Extensions(BaseModel):
    """What extends this Synapse."""

    plugins: list[str] = Field(description='Installed plugins by name (the built-in areas are not listed).')
    areas: list[DashboardAreaInfo] = Field(description="The dashboard's areas, built-in ones first.")


@router.get('/api/extensions')
async def extensions(context: Annotated[SynapseContext, Depends(get_context)]) -> Extensions:
    """The installed plugins and every dashboard area, in nav order."""
    areas = [
        DashboardAreaInfo(name=area.name, path=area.path, label=area.label)
        for area in plugin_dashboard_areas(context.plugins)
    ]
    return Extensions(plugins=plugin_names(context.plugins), areas=areas)
