"""Small, tested helpers shared by the PyTorch Field Notes notebooks.

Each module is tiny and does one thing; none of them hides the lesson a notebook
teaches. Import what you need explicitly, e.g. ``from helpers.claims import claim``.
"""

__all__ = ["claims", "seeding", "device", "timing", "plotting", "data"]
