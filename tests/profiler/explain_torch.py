"""A PyTorch program for `memhier explain`'s GPU test: four ops nobody here wrote (softmax, a
non-contiguous transpose made contiguous, layer norm, a bf16 matmul), each run once."""
import torch

x = torch.randn(4096, 4096, device="cuda")
torch.softmax(x, dim=-1)
x.t().contiguous()
torch.nn.functional.layer_norm(x, (4096,))
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
a @ b
torch.cuda.synchronize()
