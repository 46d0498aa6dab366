"""Validation: every problem with the solution, the submission or the grades collected
before one error is raised, and hints about lists damaged on their way to a file."""
