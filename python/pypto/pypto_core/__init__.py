"""``pypto.pypto_core``: the names of upstream's compiler core that scripts import."""
