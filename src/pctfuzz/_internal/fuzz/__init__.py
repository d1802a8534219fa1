"""Fuzzing: the harness protocol, the driver, campaigns, merge, replay, seeds."""
