"""Agents that run themselves: standing agents, schedules, events, tasks, logs and workers."""
