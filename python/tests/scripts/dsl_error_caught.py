import sys

import torch
from dsl_error import broken
from pypto.backend.pto_backend import PartialCodegenError
from pypto.errors import PyptoError

try:
    broken(torch.ones(16, 16), torch.zeros(16, 16))
except PartialCodegenError as e:
    assert isinstance(e, PyptoError)
    print(f"caught {type(e).__name__}: {e.message.splitlines()[0]}")
    sys.exit(0)
sys.exit(1)
