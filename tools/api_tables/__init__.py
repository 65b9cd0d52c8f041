"""Generators of hybridize/analyzer/frameworks/*_api.json from the installed TensorFlow, Keras and NumPy.

They import the frameworks, so they live here and not in hybridize/analyzer/, which never does. Run
from the repository root: `python -m tools.api_tables.generate_tensorflow_api`.
"""
