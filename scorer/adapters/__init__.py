"""Thin adapters: the command line, the Codabench and EvalAI layouts, standard output.
They translate arguments and layouts to :func:`scorer.evaluate` and never score."""
