"""A kernel package: kernels in one module, the harness in another."""
