"""mlpkg: a tiny MLP toolkit (layers, models, a training loop and utilities)."""
from .layers import Dense2
from .models import MLPClassifier

__all__ = ["Dense2", "MLPClassifier"]
