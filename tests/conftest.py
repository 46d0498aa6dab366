"""Shared test settings: no per-example deadline, since a first call may pay one-off set-up
costs (Arrow kernels, regex compilation) and CI machines are noisy."""

from hypothesis import settings

settings.register_profile("default", deadline=None)
settings.load_profile("default")
