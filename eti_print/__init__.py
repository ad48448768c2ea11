"""eti-print: printable components and card data for E.T.I.: Estimated Time to Invasion."""

__version__ = "0.1.0"
