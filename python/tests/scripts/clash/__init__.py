"""Two modules whose kernels read one name with two values."""
