"""Evals: datasets of test cases in pydantic-evals' own form, stored and versioned."""
