"""`GET /api/health` and the JSON error shape."""

from __future__ import annotations

from fastapi.testclient import TestClient

from synapse_agents import __version__
from synapse_agents.store import head_revision


def test_health_reports_version_dialect_and_revision(client: TestClient, dialect: str) -> None:
    response = client.get('/api/health')
    assert response.status_code == 200
    assert response.json() == {
        'status': 'ok',
        'version': __version__,
        'database': dialect,
        'revision': head_revision(),
        'head': head_revision(),
        'up_to_date': True,
        'store': {'ok': True, 'error': None},
        'degraded': [],
    }


def test_unknown_api_route_is_json_404(client: TestClient) -> None:
    response = client.get('/api/does-not-exist')
    assert response.status_code == 404
    assert response.headers['content-type'].startswith('application/json')
    assert response.json() == {'error': {'code': 'not_found', 'message': 'Not Found'}}


def test_wrong_method_is_json_405(client: TestClient) -> None:
    response = client.delete('/api/health')
    assert response.status_code == 405
    assert response.json()['error']['code'] == 'method_not_allowed'
