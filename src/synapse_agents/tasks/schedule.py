"""Cron schedules in a time zone: validated, described in words, and stepped through (croniter).

An expression has the five standard fields (minute hour day-of-month month day-of-week) or is one
of the `@hourly`-style nicknames; times are wall-clock times in the schedule's IANA time zone, so
"0 9 * * 1-5" in Europe/Madrid fires at 09:00 Madrid time all year round. What a bad expression or
zone is refused with says what is wrong and shows a valid one with its next three fire times.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from croniter import CroniterBadCronError, CroniterBadDateError, CroniterError, croniter

NICKNAMES = {
    '@yearly': '0 0 1 1 *',
    '@annually': '0 0 1 1 *',
    '@monthly': '0 0 1 * *',
    '@weekly': '0 0 * * 0',
    '@daily': '0 0 * * *',
    '@midnight': '0 0 * * *',
    '@hourly': '0 * * * *',
}
EXAMPLE = '0 9 * * 1-5'
"""The valid expression a refusal shows (09:00 on weekdays)."""
MAX_LENGTH = 100


class ScheduleError(ValueError):
    """A cron expression or time zone that cannot be used; the message says why and shows a valid one."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Schedule:
    """A valid cron expression in a time zone."""

    cron: str
    timezone: str

    @classmethod
    def parse(cls, cron: str, zone: str = 'UTC', *, now: datetime | None = None) -> Schedule:
        """The schedule, or a `ScheduleError` naming the field (`cron` or `timezone`)."""
        zone_info = time_zone(zone)
        expression = ' '.join(cron.split()) if isinstance(cron, str) else cron
        if not isinstance(expression, str) or not expression:
            raise ScheduleError(_with_example('cron: the expression is empty.', zone_info, now), 'cron')
        if len(expression) > MAX_LENGTH:
            raise ScheduleError(
                _with_example(
                    f'cron: {len(expression)} characters is more than {MAX_LENGTH}.', zone_info, now
                ),
                'cron',
            )
        fields = NICKNAMES.get(expression.lower(), expression)
        if fields.startswith('@'):
            known = ', '.join(NICKNAMES)
            raise ScheduleError(
                _with_example(f'cron: {expression!r} is not one of {known}.', zone_info, now), 'cron'
            )
        if len(fields.split()) != 5:
            raise ScheduleError(
                _with_example(
                    f'cron: {expression!r} has {len(fields.split())} fields; a cron expression has five '
                    '(minute hour day-of-month month day-of-week).',
                    zone_info,
                    now,
                ),
                'cron',
            )
        try:
            croniter(fields, _aware(now).astimezone(zone_info)).get_next(datetime)
        except CroniterBadDateError:
            raise ScheduleError(
                _with_example(f'cron: {expression!r} never fires (no such date).', zone_info, now), 'cron'
            ) from None
        except (CroniterBadCronError, CroniterError, ValueError, KeyError) as exc:
            raise ScheduleError(
                _with_example(
                    f'cron: {expression!r} is not a valid expression ({_reason(exc)}).', zone_info, now
                ),
                'cron',
            ) from None
        return cls(expression, zone)

    @property
    def fixed_time(self) -> bool:
        """Whether it fires at fixed times of day (no `*` in its minute and hour): as cron does, such
        a schedule fires once in the hour the clocks repeat when they go back; others fire in both."""
        minute, hour = self.fields.split()[:2]
        return '*' not in minute and '*' not in hour

    @property
    def fields(self) -> str:
        """The five fields (a nickname expanded)."""
        return NICKNAMES.get(self.cron.lower(), self.cron)

    def next_after(self, moment: datetime) -> datetime:
        """The first fire time strictly after `moment`, in UTC."""
        zone = time_zone(self.timezone)
        local = _aware(moment).astimezone(zone)
        steps = croniter(self.fields, local)
        found: datetime = steps.get_next(datetime)
        if self.fixed_time and found.replace(tzinfo=None) == local.replace(tzinfo=None):
            # The clocks went back and this wall-clock time comes round again: it fired already.
            found = steps.get_next(datetime)
        return found.astimezone(UTC)

    def last_at_or_before(self, moment: datetime) -> datetime:
        """The latest fire time at or before `moment`, in UTC."""
        zone = time_zone(self.timezone)
        local = _aware(moment).astimezone(zone)
        if (
            croniter.match(self.fields, local.replace(second=0, microsecond=0))
            and local.second == 0 == local.microsecond
        ):
            found: datetime = local
        else:
            found = croniter(self.fields, local).get_prev(datetime)
        if self.fixed_time:
            earlier: datetime = croniter(self.fields, found).get_prev(datetime)
            if earlier.replace(tzinfo=None) == found.replace(tzinfo=None):
                found = earlier  # the repeated copy of a wall-clock time that fired already
        return found.astimezone(UTC)

    def upcoming(self, count: int = 3, *, after: datetime | None = None) -> list[datetime]:
        """The next `count` fire times after `after` (default: now), in UTC."""
        moment = _aware(after)
        found: list[datetime] = []
        for _ in range(count):
            moment = self.next_after(moment)
            found.append(moment)
        return found

    def words(self) -> str:
        """The schedule in words: "At 09:00, Monday through Friday (Europe/Madrid)"."""
        return describe(self.fields, self.timezone)


@lru_cache(maxsize=512)
def describe(fields: str, zone: str) -> str:
    """A five-field expression in words, with its time zone."""
    from cron_descriptor import ExpressionDescriptor, Options

    options = Options()
    options.use_24hour_time_format = True
    options.verbose = False
    try:
        text = ExpressionDescriptor(fields, options).get_description()
    except Exception:
        text = fields
    return f'{text} ({zone})'


def time_zone(name: str) -> ZoneInfo:
    """The IANA zone `name`, or a `ScheduleError` for the `timezone` field."""
    if not isinstance(name, str) or not name or len(name) > 64 or '\x00' in name:
        raise ScheduleError(
            _with_example(f'timezone: {name!r:.80} is not an IANA time zone.', ZoneInfo('UTC'), None),
            'timezone',
        )
    try:
        return ZoneInfo(name)
    except (ValueError, KeyError, OSError):
        raise ScheduleError(
            _with_example(
                f'timezone: {name!r:.80} is not an IANA time zone (e.g. Europe/Madrid, America/New_York).',
                ZoneInfo('UTC'),
                None,
            ),
            'timezone',
        ) from None


def _with_example(message: str, zone: ZoneInfo, now: datetime | None) -> str:
    steps = croniter(EXAMPLE, _aware(now).astimezone(zone))
    times = ', '.join(steps.get_next(datetime).strftime('%a %Y-%m-%d %H:%M') for _ in range(3))
    return f'{message} A valid one: {EXAMPLE!r} (09:00 on weekdays) fires next at {times} ({zone.key}).'


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    if text.startswith('['):
        text = text.split(']', 1)[-1].strip()
    return text[:120] or type(exc).__name__


def _aware(moment: datetime | None) -> datetime:
    if moment is None:
        return datetime.now(UTC)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
