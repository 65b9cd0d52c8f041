"""hybridize: decide where imperative deep-learning code may run as a graph, and refactor it."""

__version__ = "0.1.0"
