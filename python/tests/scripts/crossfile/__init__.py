"""Kernels that call kernels of another module of the package."""
