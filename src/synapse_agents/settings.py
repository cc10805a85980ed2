"""Every Synapse setting, declared once.

A setting is a field of `Settings`: its name, type, default and help text live here and nowhere
else. Values come from, in order of precedence: command-line flags, `SYNAPSE_*` environment
variables (a project's `.env` file included), the `[tool.synapse]` table of the project's
`pyproject.toml`, then the default. `synapse settings` prints each value and where it came from.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

from dotenv import dotenv_values
from pydantic import Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from .redaction import remember, remember_headers, url_password
from .secret_key_file import key_path, stored_key

ENV_PREFIX = 'SYNAPSE_'
PYPROJECT_TABLE = ('tool', 'synapse')
MAX_RETENTION_DAYS = 36_500
"""The longest `retention_days`: 100 years (a date is still counted back from today by it)."""

Source = Literal['cli', 'env', 'dotenv', 'pyproject', 'default']


class SettingsError(ValueError):
    """A setting has a value Synapse cannot use; the message names the setting and its source."""


def _split_list(value: Any) -> Any:
    """Accept `a,b` (environment) as well as a TOML/JSON list."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith('['):
            import json

            return json.loads(stripped)
        return [item.strip() for item in stripped.split(',') if item.strip()]
    return value


class Settings(BaseSettings):
    """Synapse's configuration. Each field is one setting; its description is the help text."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra='ignore', validate_default=True)

    home: Path = Field(
        Path('.synapse'),
        description='Folder for the embedded database and uploaded attachments '
        '(relative paths are taken from the project root).',
    )
    database_url: str | None = Field(
        None,
        examples=['postgresql://postgres@127.0.0.1:5432/synapse'],
        description='SQLAlchemy URL of the store. Unset: SQLite at <home>/synapse.db. '
        'PostgreSQL: postgresql://user@host/db (needs the `postgres` extra).',
    )
    host: str = Field('127.0.0.1', description='Interface `synapse serve` binds to.')
    port: int = Field(8765, ge=0, le=65535, description='Port `synapse serve` listens on.')
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description='Host names the server answers to besides loopback (e.g. a dev proxy name; '
        '`*.example.com` wildcards allowed; comma-separated in the environment). '
        'Guards against DNS rebinding.',
    )
    env: str = Field(
        'local',
        description='Environment name (case and surrounding spaces ignored). `local` opens the '
        'dashboard without login to clients on this machine when bound to loopback; anything else '
        'requires a token; `production` also requires `enabled = true`.',
    )
    enabled: bool | None = Field(
        None, examples=[True], description='Must be set to true to run Synapse when env is `production`.'
    )
    token: SecretStr | None = Field(
        None,
        description='Access token for non-local use, at least 16 characters. Unset outside local '
        'mode: one is generated at start.',
    )
    session_ttl: int = Field(
        12 * 3600,
        gt=0,
        description='How long a login session of token mode lasts, in seconds (logging out ends it '
        'sooner; sessions also end when the server stops).',
    )
    trusted_proxies: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        examples=[['10.0.0.5']],
        description='Addresses or networks of reverse proxies whose X-Forwarded-For `synapse serve` '
        'believes (comma-separated in the environment). Unset: the client is always the connecting '
        'address.',
    )
    agents: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description='Where to discover agents: module paths, module:attribute, .py files, folders or '
        'agent spec files (comma-separated in the environment). Unset: ./agents, else the project.',
    )
    env_file: Path | None = Field(
        None,
        examples=['.env.local'],
        description="An extra dotenv file loaded before agents are imported (after the project's .env).",
    )
    models: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description='Extra models offered in the playground model selector, e.g. openai:gpt-5 '
        '(comma-separated in the environment).',
    )
    attachments_max_bytes: int = Field(
        20 * 1024 * 1024, gt=0, description='Largest attachment accepted, in bytes.'
    )
    max_attachments: int = Field(10, ge=0, le=100, description='Most files one chat message may carry.')
    max_message_chars: int = Field(100_000, gt=0, description='Longest chat message accepted, in characters.')
    max_request_bytes: int | None = Field(
        None,
        gt=0,
        examples=[104857600],
        description='Largest request body accepted, in bytes. Unset: enough for max_attachments '
        'files of attachments_max_bytes each plus the message.',
    )
    retention_days: int = Field(
        30,
        gt=0,
        le=MAX_RETENTION_DAYS,
        description='Conversations not updated for this many days are removed by `synapse prune` '
        '(1 to 36500: 100 years).',
    )
    auto_prune: bool = Field(
        False, description='When true, `synapse serve` prunes conversations older than retention_days daily.'
    )
    secret_key: SecretStr | None = Field(
        None,
        description='Key that encrypts stored secrets such as provider API keys (a Fernet key: '
        '`synapse registry new-key` prints one). Several comma-separated keys: the first encrypts, '
        'any decrypts (for `synapse registry rotate-key`). Unset: the first secret stored makes one in '
        '`<home>/secret_key` (mode 0600; back it up with the database); with env `production`, storing a '
        'secret is refused instead.',
    )
    language: str = Field('en', description='Default language of answers and summaries (an IETF tag).')
    chunk_size: int = Field(
        1000, gt=0, description='Characters per chunk when documents are split for retrieval.'
    )
    chunk_overlap: int = Field(200, ge=0, description='Characters two neighbouring chunks share.')
    vector_store: str = Field(
        'auto',
        description='The vector index for memory and retrieval: `auto` (sqlite-vec on SQLite, pgvector '
        'on PostgreSQL), `sqlite-vec` or `pgvector`.',
    )
    reference_currency: str = Field(
        'USD',
        pattern=r'^[A-Z]{3}$',
        description='The currency spend is reported in and ledger costs are converted to (an ISO 4217 code).',
    )
    currency_rates: Annotated[dict[str, Decimal], NoDecode] = Field(
        default_factory=dict,
        examples=[{'EUR': '1.08'}],
        description='What one unit of each other currency is worth in the reference currency, e.g. '
        '{"EUR": "1.08"} (JSON in the environment). A cost in a currency with no rate has no '
        'reference cost.',
    )
    limits_timezone: str = Field(
        'UTC',
        description='The IANA time zone calendar spending limits count days and months in, unless a '
        'limit names its own (and the days of the spend report).',
    )
    usage_recorder: str | None = Field(
        None,
        examples=['myapp.billing:recorder'],
        description="An app's credit system as `module:attribute`: asked `has_credits` before each "
        'model call and told `record` after it. Unset: none.',
    )
    default_max_output_tokens: int = Field(
        4096,
        gt=0,
        description='The output tokens a model request is assumed to use at most when neither its '
        "settings' max_tokens nor the registry model's max_output_tokens say (for spending limits).",
    )

    queue_url: str | None = Field(
        None,
        examples=['redis://127.0.0.1:6379/0', 'amqp://guest:guest@127.0.0.1:5672//'],
        description='The Celery broker agent tasks are queued on (Redis or RabbitMQ), for `synapse worker` '
        'processes on several machines. Unset: `synapse serve` runs tasks in-process.',
    )
    queue_name: str = Field(
        'synapse-agents',
        min_length=1,
        max_length=100,
        pattern=r'^[A-Za-z0-9_.:-]+$',
        description='The Celery queue agent tasks go to (give agent runs a queue of their own).',
    )
    task_concurrency: int = Field(
        2,
        ge=0,
        le=64,
        description='Tasks the in-process worker of `synapse serve` runs at once (0: none; with '
        '`queue_url` set, Celery workers run them instead).',
    )
    scheduler: bool = Field(
        True, description='`synapse serve` ticks the schedule (several schedulers fire each slot once).'
    )
    tick_seconds: float = Field(
        15,
        gt=0,
        le=3600,
        description='Seconds between scheduler ticks (a slot fires on the first tick after it).',
    )
    task_heartbeat_seconds: float = Field(
        10, gt=0, le=3600, description='Seconds between the heartbeats of a running task.'
    )
    task_stale_seconds: float = Field(
        120,
        gt=0,
        description='A running task whose heartbeat is older than this is failed by the sweep (its '
        'worker stopped).',
    )
    deps: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict,
        examples=[{'app.agents:support': 'app.deps:make_support_deps'}],
        description='Deps factories for agents that do not name one in their metadata: an agent target '
        '(`module:attribute`, or its slug) → `module:callable`, as the `[tool.synapse.deps]` table '
        '(JSON in the environment). See docs/discovery.md.',
    )
    deps_lifetime: Literal['turn', 'server'] = Field(
        'turn',
        description='How long the deps a factory builds live: `turn` (built for each turn and torn down '
        'when it ends) or `server` (built once per agent on first use, torn down when the server '
        "stops). An agent can say so itself: metadata={'synapse.deps_lifetime': 'server'}.",
    )
    placers: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict,
        examples=[{'file_uploaded': 'myapp.synapse:file_uploaded'}],
        description="Event placers: a name → `module:callable` that maps an app object (a signal's "
        'arguments) to {event, tenant, subject, context}, or None for "nothing fires" (JSON in the '
        'environment).',
    )

    debug: bool = Field(
        False,
        description='Keep the bodies (requests and responses) of every debug log of every run, nested '
        'runs included; every turn records its trace tree anyway. Off: only the playground keeps them '
        '(debug_playground).',
    )
    debug_playground: bool = Field(
        True, description="Keep the debug logs' bodies (requests and responses) of the playground's turns."
    )
    debug_agents: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        examples=[['support', 'config:triage']],
        description='Agents (slugs) whose runs always record debug logs, wherever they run '
        '(comma-separated in the environment). An agent can also say so itself: '
        "metadata={'synapse.debug': True} (or False to never record).",
    )
    rules_shared_heading: str = Field(
        'RULES. Every rule below is mandatory: follow each one, always, whatever else you are asked.',
        min_length=1,
        max_length=1000,
        description='The heading of the shared rules `Rules()` puts at the top of the prompt (blunt on '
        'purpose: a rule the model reads as a suggestion is not a rule).',
    )
    rules_personal_heading: str = Field(
        'PREFERENCES of the person you are talking to. Follow them unless a rule above says otherwise.',
        min_length=1,
        max_length=1000,
        description="The heading of the person's own rules, rendered after the shared ones.",
    )
    memory_model: str | None = Field(
        None,
        examples=['openai:gpt-5-mini', 'demo'],
        description='The model that distils memories from conversations (a pydantic-ai model string, a '
        'registry model key, or `demo` for the offline demo model). Unset: no memory is distilled.',
    )
    memory_prompt: str | None = Field(
        None,
        max_length=20_000,
        description="Replaces the distiller's instructions (it must still ask for the `shared` and "
        '`personal` lists). Unset: the packaged English prompt.',
    )
    share_memories: bool = Field(
        True,
        description='Whether what a person says may become shared memories when they never chose '
        '(a stored choice per person beats it).',
    )
    memory_sweep_minutes: int = Field(
        30,
        ge=1,
        le=10_080,
        description='Conversations quiet for this long with something not yet distilled are distilled '
        '(checked as often).',
    )
    embedder: str = Field(
        'auto',
        examples=['auto', 'off', 'local', 'openai:text-embedding-3-small'],
        description='What embeds memories for search by meaning: `auto` (the offline model when the '
        '`embeddings` extra is installed, else none), `local` (that model, required), `off`, or a '
        'pydantic-ai embedding model string (a paid provider: only when named here).',
    )
    rag_chunk_chars: int = Field(
        1200,
        ge=100,
        le=20_000,
        description="The longest chunk a retrieval source's files are cut into, in characters "
        '(cut on paragraphs, then sentences, then words).',
    )
    rag_chunk_overlap: int = Field(
        150,
        ge=0,
        le=5_000,
        description='Characters a chunk repeats from the end of the one before it.',
    )
    rag_max_file_bytes: int = Field(
        25 * 1024 * 1024,
        gt=0,
        description='The largest file a retrieval source indexes or accepts as an upload, in bytes (a '
        'larger one is recorded as failed).',
    )
    privacy_enabled: bool = Field(
        False,
        description='Redact personal data on every turn: a copy of what leaves for the model has '
        'e-mails, phones, IBANs, cards, IPs, national ids (and names unless kept) replaced by '
        'placeholders, and the reply is restored (docs/privacy.md). The detector unavailable fails the '
        'turn. Off: only agents that have Privacy() redact.',
    )
    privacy_except: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ['PERSON'],
        examples=[['PERSON', 'LOCATION'], []],
        description='Entities left in clear when privacy is on (comma-separated in the environment; '
        'an empty list redacts everything). Person names by default: in gendered languages the first '
        'name carries the grammatical gender.',
    )
    debug_body_bytes: int = Field(
        262_144,
        ge=1024,
        description='The largest request, history or response body kept in a debug log (bytes of '
        'JSON); a larger one is kept as a preview with its size. Stored compressed.',
    )
    otel_endpoint: str | None = Field(
        None,
        examples=['http://127.0.0.1:4318'],
        description='An OTLP/HTTP collector every run Synapse executes is exported to, with '
        "pydantic-ai's own instrumentation (/v1/traces is added to a bare URL). Unset: not exported.",
    )
    otel_headers: SecretStr | None = Field(
        None,
        examples=['Authorization=Basic abc123'],
        description='Headers sent to otel_endpoint, as key=value,key2=value2.',
    )

    _agents_split = field_validator(
        'agents',
        'models',
        'allowed_hosts',
        'trusted_proxies',
        'debug_agents',
        'privacy_except',
        mode='before',
    )(_split_list)

    @field_validator('otel_endpoint')
    @classmethod
    def _otel_url(cls, value: str | None) -> str | None:
        from urllib.parse import urlsplit

        if value is None or not value.strip():
            return None
        parts = urlsplit(value.strip())
        if parts.scheme not in ('http', 'https') or not parts.netloc:
            raise ValueError(
                f'{value!r} is not an http(s) URL of an OTLP/HTTP collector (e.g. http://127.0.0.1:4318)'
            )
        return value.strip()

    @field_validator('env', mode='before')
    @classmethod
    def _normalise_env(cls, value: Any) -> Any:
        # Every check compares against 'local' / 'production': ' Production' must mean production.
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator('trusted_proxies')
    @classmethod
    def _proxy_addresses(cls, value: list[str]) -> list[str]:
        import ipaddress

        for item in value:
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise ValueError(
                    f'{item!r} is not an IP address or network (list the proxies themselves; '
                    '"*" would let any client choose its own address)'
                ) from None
        return value

    @field_validator('currency_rates', 'placers', 'deps', mode='before')
    @classmethod
    def _rates_json(cls, value: Any) -> Any:
        """JSON text (the environment; a TOML string) as well as a table."""
        if isinstance(value, str):
            import json

            text = value.strip()
            if not text:
                return {}
            try:
                return json.loads(text)
            except ValueError:
                raise ValueError('expected JSON: an object such as {"EUR": "1.08"}') from None
        return value

    @field_validator('currency_rates')
    @classmethod
    def _rates(cls, value: dict[str, Decimal]) -> dict[str, Decimal]:
        import re

        for code, rate in value.items():
            if not re.fullmatch(r'[A-Z]{3}', code):
                raise ValueError(f'{code!r} is not a currency code (three capital letters, e.g. EUR)')
            if not rate.is_finite() or rate <= 0:
                raise ValueError(f'the rate of {code} must be a number above 0, not {rate}')
        return value

    @field_validator('limits_timezone')
    @classmethod
    def _zone(cls, value: str) -> str:
        from zoneinfo import ZoneInfo

        try:
            ZoneInfo(value)
        except (ValueError, KeyError, OSError):
            raise ValueError(f'{value!r} is not an IANA time zone (e.g. Europe/Paris)') from None
        return value

    @field_validator(
        'database_url',
        'env_file',
        'enabled',
        'token',
        'max_request_bytes',
        'usage_recorder',
        'queue_url',
        mode='before',
    )
    @classmethod
    def _empty_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # `load_settings` merges the sources itself (flags > environment > pyproject > default), so
        # that it can say where each value came from; the model only validates the merged values.
        return (init_settings,)

    @property
    def resolved_database_url(self) -> str:
        """The database URL with the SQLite default filled in and the PostgreSQL driver named."""
        if not self.database_url:
            return f'sqlite:///{self.home / "synapse.db"}'
        url = self.database_url
        for prefix in ('postgres://', 'postgresql://'):
            if url.startswith(prefix):
                return 'postgresql+psycopg://' + url[len(prefix) :]
        return url

    @property
    def request_limit(self) -> int:
        """The request body cap in bytes (see `max_request_bytes`)."""
        if self.max_request_bytes:
            return self.max_request_bytes
        return (
            self.attachments_max_bytes * max(self.max_attachments, 1)
            + self.max_message_chars * 4
            + 1024 * 1024
        )

    @property
    def attachments_dir(self) -> Path:
        """Where uploaded files are kept."""
        return self.home / 'attachments'


SETTING_NAMES: tuple[str, ...] = tuple(Settings.model_fields)


@dataclass(frozen=True)
class SettingValue:
    """One setting as loaded: its value, where the value came from, and its help text."""

    name: str
    value: Any
    source: Source
    origin: str
    help: str

    @property
    def env_var(self) -> str:
        return ENV_PREFIX + self.name.upper()

    def display(self) -> str:
        if isinstance(self.value, SecretStr):
            return '********'
        if self.value is None:
            return '—'
        if isinstance(self.value, list):
            return ', '.join(str(v) for v in self.value) or '—'
        if isinstance(self.value, dict):
            return ', '.join(f'{k}={v}' for k, v in self.value.items()) or '—'
        return str(self.value)


@dataclass(frozen=True)
class LoadedSettings:
    """Settings plus the project they belong to and where each value came from."""

    settings: Settings
    project_root: Path
    pyproject: Path | None
    values: tuple[SettingValue, ...]
    dotenv_files: tuple[Path, ...]


def find_project_root(start: Path | None = None) -> tuple[Path, Path | None]:
    """The folder of the nearest `pyproject.toml` at or above `start`, else `start` itself."""
    start = (start or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        candidate = folder / 'pyproject.toml'
        if candidate.is_file():
            return folder, candidate
    return start, None


def read_pyproject_table(pyproject: Path | None) -> dict[str, Any]:
    """`[tool.synapse]` of `pyproject` (empty without one); `SettingsError` when unreadable or unknown."""
    if pyproject is None:
        return {}
    try:
        data = tomllib.loads(pyproject.read_text(encoding='utf-8'))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f'cannot read {pyproject}: {exc}') from exc
    table: Any = data
    for key in PYPROJECT_TABLE:
        table = table.get(key, {}) if isinstance(table, dict) else {}
    if not isinstance(table, dict):
        raise SettingsError(f'[tool.synapse] in {pyproject} must be a table')
    unknown = sorted(set(table) - set(SETTING_NAMES))
    if unknown:
        raise SettingsError(
            f'unknown setting {unknown[0]!r} in [tool.synapse] of {pyproject} '
            f'(known settings: {", ".join(SETTING_NAMES)})'
        )
    return dict(table)


def _load_dotenv_files(files: list[Path]) -> dict[str, str]:
    """Put the files' variables into os.environ without overriding what is already set.

    Returns the variables this call set, so their source can be reported as `dotenv`.
    """
    loaded: dict[str, str] = {}
    for path in files:
        if not path.is_file():
            continue
        for key, value in dotenv_values(path).items():
            if value is not None and key not in os.environ:
                os.environ[key] = value
                loaded[key] = value
    return loaded


def load_settings(
    overrides: dict[str, Any] | None = None,
    *,
    cwd: Path | None = None,
    load_dotenv: bool = True,
) -> LoadedSettings:
    """Load every setting for the project at (or above) `cwd`.

    `overrides` are command-line values (None means "not given"). With `load_dotenv`, the
    project's `.env` and the `env_file` setting's file are loaded into the environment first,
    never overriding variables already set, so agents imported later see the same keys.
    """
    root, pyproject = find_project_root(cwd)
    cli = {k: v for k, v in (overrides or {}).items() if v is not None}
    table = read_pyproject_table(pyproject)

    dotenv_files: list[Path] = []
    dotenv_loaded: dict[str, str] = {}
    if load_dotenv:
        env_file = cli.get('env_file') or os.environ.get(ENV_PREFIX + 'ENV_FILE') or table.get('env_file')
        dotenv_files = [root / '.env']
        if env_file:
            dotenv_files.append(_resolve(Path(env_file), root))
        dotenv_loaded = _load_dotenv_files(dotenv_files)

    from_env = EnvSettingsSource(Settings)()
    try:
        settings = Settings(**{**table, **from_env, **cli})
    except ValueError as exc:
        raise SettingsError(describe_validation_error(exc, table, cli)) from exc

    # Relative paths mean "in the project", wherever synapse was started from.
    settings.home = _resolve(settings.home, root)
    if settings.env_file is not None:
        settings.env_file = _resolve(settings.env_file, root)
    key_from_home = settings.secret_key is None
    if key_from_home:
        settings.secret_key = stored_key(settings.home, settings.env)

    values = []
    for name, field in Settings.model_fields.items():
        env_var = ENV_PREFIX + name.upper()
        source: Source
        if name in cli:
            source, origin = 'cli', 'command line'
        elif env_var in dotenv_loaded:
            source, origin = 'dotenv', env_var
        elif env_var in os.environ:
            source, origin = 'env', env_var
        elif name in table:
            source, origin = 'pyproject', str(pyproject)
        elif name == 'secret_key' and key_from_home and settings.secret_key is not None:
            source, origin = 'default', str(key_path(settings.home))
        else:
            source, origin = 'default', ''
        values.append(SettingValue(name, getattr(settings, name), source, origin, field.description or ''))
    found = tuple(p for p in dotenv_files if p.is_file())
    return LoadedSettings(settings, root, pyproject, tuple(values), found)


def _resolve(path: Path, root: Path) -> Path:
    path = path.expanduser()
    return path if path.is_absolute() else (root / path).resolve()


def describe_validation_error(exc: ValueError, table: dict[str, Any], cli: dict[str, Any]) -> str:
    """One line naming the first bad setting and where its value came from."""
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError):
        return str(exc)
    error = exc.errors()[0]
    name = str(error['loc'][0]) if error['loc'] else '?'
    env_var = ENV_PREFIX + name.upper()
    where = (
        'the command line'
        if name in cli
        else env_var
        if env_var in os.environ
        else '[tool.synapse]'
        if name in table
        else 'the default'
    )
    return f'invalid setting {name!r} from {where}: {error["msg"]}'


def settings_markdown() -> str:
    """The settings table of docs/configuration.md, generated from the registry."""
    rows = ['| Setting | Environment variable | Default | Description |', '|---|---|---|---|']
    for name, field in Settings.model_fields.items():
        default = field.get_default(call_default_factory=True)
        shown = '—' if default in (None, [], {}) else f'`{default}`'
        rows.append(f'| `{name}` | `{ENV_PREFIX}{name.upper()}` | {shown} | {field.description} |')
    return '\n'.join(rows) + '\n'


def remember_settings(settings: Settings) -> None:
    """The secrets among `settings`: each key of `secret_key`, the access `token`, the values of
    `otel_headers` (and the credential after `Bearer ` or `Basic `), the passwords of
    `database_url` and `queue_url`."""
    if settings.secret_key is not None:
        remember(*(part.strip() for part in settings.secret_key.get_secret_value().split(',')))
    if settings.token is not None:
        remember(settings.token.get_secret_value())
    if settings.otel_headers is not None:
        remember_headers(settings.otel_headers.get_secret_value())
    remember(url_password(settings.database_url), url_password(settings.queue_url))
