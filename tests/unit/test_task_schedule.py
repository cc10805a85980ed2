"""Cron schedules: five fields and nicknames, wall-clock times in a zone across summer time, and
refusals that name the field and show a valid expression with its next three fire times."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from synapse_agents.tasks.schedule import EXAMPLE, NICKNAMES, Schedule, ScheduleError, time_zone


def at(text: str) -> datetime:
    """An aware UTC datetime from `2026-03-29 00:30`."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


MONDAY = at('2026-01-05 10:00')
"""A Monday morning: the example ('0 9 * * 1-5') fires next on Tuesday, Wednesday and Thursday."""
FIRE_TIMES = re.compile(r'fires next at (\w{3} \d{4}-\d\d-\d\d \d\d:\d\d), (\S+ \S+ \S+), (\S+ \S+ \S+) \(')


def example_times(message: str) -> list[str]:
    """The three fire times of the example a refusal shows."""
    found = FIRE_TIMES.search(message)
    assert found is not None, message
    return list(found.groups())


# -- valid expressions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ('cron', 'after', 'expected'),
    [
        ('*/5 * * * *', '2026-01-05 10:02', ['10:05', '10:10', '10:15']),
        ('0 9 * * 1-5', '2026-01-09 10:00', ['2026-01-12 09:00', '2026-01-13 09:00', '2026-01-14 09:00']),
        ('30 18 1 * *', '2026-01-05 00:00', ['2026-02-01 18:30', '2026-03-01 18:30', '2026-04-01 18:30']),
        ('0 0 29 2 *', '2026-01-01 00:00', ['2028-02-29 00:00', '2032-02-29 00:00', '2036-02-29 00:00']),
        ('15,45 8-9 * * *', '2026-01-05 08:20', ['08:45', '09:15', '09:45']),
        (
            '0 12 * JAN,FEB MON',
            '2026-01-27 00:00',
            ['2026-02-02 12:00', '2026-02-09 12:00', '2026-02-16 12:00'],
        ),
    ],
)
def test_five_field_expressions_fire_at_their_times(cron: str, after: str, expected: list[str]) -> None:
    schedule = Schedule.parse(cron, 'UTC', now=at(after))
    shown = [t.strftime('%Y-%m-%d %H:%M') for t in schedule.upcoming(3, after=at(after))]
    assert [s[-len(e) :] for s, e in zip(shown, expected, strict=True)] == expected
    assert all(t.tzinfo is not None and t.utcoffset() == timedelta(0) for t in schedule.upcoming(3))


@pytest.mark.parametrize(('nickname', 'fields'), sorted(NICKNAMES.items()))
def test_nicknames_stand_for_their_fields(nickname: str, fields: str) -> None:
    schedule = Schedule.parse(nickname)
    assert schedule.cron == nickname and schedule.fields == fields
    assert schedule.upcoming(3, after=MONDAY) == Schedule.parse(fields).upcoming(3, after=MONDAY)
    assert Schedule.parse(nickname.upper()).fields == fields


def test_spaces_are_normalised() -> None:
    schedule = Schedule.parse('  0   9 *\t* 1-5 ')
    assert schedule.cron == '0 9 * * 1-5'


def test_next_after_is_strictly_after_and_last_at_or_before_includes_the_moment() -> None:
    schedule = Schedule.parse('*/5 * * * *')
    assert schedule.next_after(at('2026-01-05 10:05')) == at('2026-01-05 10:10')
    assert schedule.last_at_or_before(at('2026-01-05 10:05')) == at('2026-01-05 10:05')
    assert schedule.last_at_or_before(at('2026-01-05 10:09:59')) == at('2026-01-05 10:05')
    assert schedule.last_at_or_before(at('2026-01-05 10:05:00.5')) == at('2026-01-05 10:05')


# -- time zones -------------------------------------------------------------------------------


def test_nine_in_madrid_is_eight_utc_in_winter_and_seven_in_summer() -> None:
    schedule = Schedule.parse('0 9 * * *', 'Europe/Madrid')
    assert schedule.next_after(at('2026-01-15 00:00')) == at('2026-01-15 08:00')
    assert schedule.next_after(at('2026-07-15 00:00')) == at('2026-07-15 07:00')
    # The week summer time starts (Sunday 29 March 2026): 08:00 UTC on Saturday, 07:00 on Sunday.
    assert schedule.upcoming(3, after=at('2026-03-27 12:00')) == [
        at('2026-03-28 08:00'),
        at('2026-03-29 07:00'),
        at('2026-03-30 07:00'),
    ]
    assert schedule.last_at_or_before(at('2026-07-15 07:30')) == at('2026-07-15 07:00')


@pytest.mark.parametrize(
    ('zone', 'cron', 'start'),
    [
        # Madrid skips 02:00-03:00 on 29 March 2026 and repeats 02:00-03:00 on 25 October.
        ('Europe/Madrid', '30 2 * * *', '2026-03-27 00:00'),
        ('Europe/Madrid', '*/15 * * * *', '2026-03-28 23:00'),
        ('Europe/Madrid', '30 2 * * *', '2026-10-23 00:00'),
        ('Europe/Madrid', '0 * * * *', '2026-10-24 22:00'),
        ('America/New_York', '30 2 * * *', '2026-03-07 00:00'),
        # Havana skips its midnight; Lord Howe moves by half an hour.
        ('America/Havana', '0 0 * * *', '2026-03-06 00:00'),
        ('Australia/Lord_Howe', '15,45 * * * *', '2026-04-04 12:00'),
        ('Australia/Lord_Howe', '0 2 * * *', '2026-10-02 00:00'),
    ],
)
def test_summer_time_gaps_and_repeats_do_not_crash_and_time_moves_on(
    zone: str, cron: str, start: str
) -> None:
    schedule = Schedule.parse(cron, zone, now=at(start))
    moment = at(start)
    for _ in range(200):
        following = schedule.next_after(moment)
        assert following > moment
        assert schedule.last_at_or_before(following) == following
        assert schedule.last_at_or_before(following - timedelta(seconds=1)) <= moment
        moment = following
    assert len(schedule.upcoming(3, after=at(start))) == 3
    assert schedule.words().endswith(f'({zone})')


def test_a_time_inside_the_gap_fires_once_that_day() -> None:
    schedule = Schedule.parse('30 2 * * *', 'Europe/Madrid')
    fired = schedule.upcoming(3, after=at('2026-03-28 12:00'))
    assert [t.date().isoformat() for t in fired] == ['2026-03-29', '2026-03-30', '2026-03-31']
    assert fired[1:] == [at('2026-03-30 00:30'), at('2026-03-31 00:30')]


# -- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ('cron', 'words'),
    [
        ('* * * *', 'has 4 fields'),
        ('0 9 * *', 'has 4 fields'),
        ('* * * * * *', 'has 6 fields'),
        ('0 9 * * 1-5 2026', 'has 6 fields'),
        ('61 * * * *', 'not a valid expression'),
        ('0 24 * * *', 'not a valid expression'),
        ('0 0 0 * *', 'not a valid expression'),
        ('0 0 32 * *', 'not a valid expression'),
        ('0 0 * 13 *', 'not a valid expression'),
        ('0 0 * * 8', 'not a valid expression'),
        ('*/0 * * * *', 'not a valid expression'),
        ('a b c d e', 'not a valid expression'),
        ('- * * * *', 'not a valid expression'),
        ('0 0 31 2 *', 'never fires'),
        ('0 0 30,31 2 *', 'never fires'),
        ('0 0 31 4 *', 'never fires'),
        ('@often', 'is not one of @yearly'),
        ('@reboot', 'is not one of @yearly'),
        ('', 'the expression is empty'),
        ('   ', 'the expression is empty'),
        ('0 9 * * *\x00', 'not a valid expression'),
        ('\x00', 'has 1 fields'),
        ('0 ' * 60, 'more than 100'),
    ],
)
def test_a_bad_expression_names_the_cron_field_and_shows_the_example(cron: str, words: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        Schedule.parse(cron, 'UTC', now=MONDAY)
    message = str(caught.value)
    assert caught.value.field == 'cron'
    assert message.startswith('cron: ') and words in message
    assert f'A valid one: {EXAMPLE!r}' in message
    assert example_times(message) == ['Tue 2026-01-06 09:00', 'Wed 2026-01-07 09:00', 'Thu 2026-01-08 09:00']


def test_the_example_is_shown_in_the_schedules_zone() -> None:
    with pytest.raises(ScheduleError) as caught:
        Schedule.parse('0 0 31 2 *', 'Asia/Tokyo', now=MONDAY)
    # 10:00 UTC on Monday is 19:00 in Tokyo: the next 09:00 there is Tuesday's.
    assert example_times(str(caught.value))[0] == 'Tue 2026-01-06 09:00'
    assert str(caught.value).endswith('(Asia/Tokyo).')


@pytest.mark.parametrize('cron', [None, 5, ['0', '9', '*', '*', '*']])
def test_an_expression_that_is_not_text_is_refused(cron: object) -> None:
    with pytest.raises(ScheduleError) as caught:
        Schedule.parse(cron, 'UTC')  # type: ignore[arg-type]
    assert caught.value.field == 'cron'


@pytest.mark.parametrize(
    'zone', ['Mars/Olympus', '', 'Europe/Madrid\x00', 'europe madrid', '../../etc/passwd', 'x' * 65, None, 3]
)
def test_a_bad_zone_names_the_timezone_field_and_shows_the_example(zone: object) -> None:
    with pytest.raises(ScheduleError) as caught:
        Schedule.parse('0 9 * * *', zone)  # type: ignore[arg-type]
    message = str(caught.value)
    assert caught.value.field == 'timezone'
    assert message.startswith('timezone: ') and 'is not an IANA time zone' in message
    assert len(example_times(message)) == 3
    with pytest.raises(ScheduleError):
        time_zone(zone)  # type: ignore[arg-type]


def test_a_bad_zone_is_reported_before_a_bad_expression() -> None:
    with pytest.raises(ScheduleError) as caught:
        Schedule.parse('61 * * * *', 'Nowhere/City')
    assert caught.value.field == 'timezone'


def test_a_schedule_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match='never fires'):
        Schedule.parse('0 0 31 2 *')


# -- words ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ('cron', 'zone', 'words'),
    [
        ('0 9 * * 1-5', 'Europe/Madrid', 'At 09:00, Monday through Friday (Europe/Madrid)'),
        ('*/5 * * * *', 'UTC', 'Every 5 minutes (UTC)'),
        ('@daily', 'UTC', 'At 00:00 (UTC)'),
        ('30 18 1 * *', 'America/New_York', 'At 18:30, on day 1 of the month (America/New_York)'),
    ],
)
def test_words_describe_the_schedule_with_its_zone(cron: str, zone: str, words: str) -> None:
    assert Schedule.parse(cron, zone).words() == words


def test_a_fixed_time_fires_once_when_the_clocks_go_back() -> None:
    """02:30 comes round twice in Madrid on 25 October 2026; a daily 02:30 runs once that night."""
    daily = Schedule.parse('30 2 * * *', 'Europe/Madrid')
    first = daily.next_after(datetime(2026, 10, 24, 23, 0, tzinfo=UTC))
    assert first == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)  # 02:30 summer time
    assert daily.next_after(first) == datetime(2026, 10, 26, 1, 30, tzinfo=UTC)  # the next day
    assert daily.upcoming(2, after=datetime(2026, 10, 24, 23, 0, tzinfo=UTC)) == [
        first,
        datetime(2026, 10, 26, 1, 30, tzinfo=UTC),
    ]
    # A schedule every half hour still runs in both copies of the repeated hour.
    half_hourly = Schedule.parse('*/30 * * * *', 'Europe/Madrid')
    times = half_hourly.upcoming(4, after=datetime(2026, 10, 24, 23, 50, tzinfo=UTC))
    assert times == [datetime(2026, 10, 25, 0, 0, tzinfo=UTC) + timedelta(minutes=30 * i) for i in range(4)]
