"""PyTorch Field Notes as a tool: ``fieldnotes check`` finds in your code the pitfalls the notebooks prove.

Every rule of :mod:`fieldnotes.check` cites the executed, asserted claim (``NN-Cn``) that shows why the
finding matters. The console script is ``fieldnotes``; ``python -m fieldnotes`` runs the same.
"""

__version__ = "0.1.0"
