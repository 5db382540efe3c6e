"""OpenCV ``warpAffine`` matrices ↔ PyTorch ``affine_grid`` thetas.

OpenCV: ``dst = warpAffine(src, M, (W_out, H_out))`` with ``M`` (2×3) mapping *source* pixel
coordinates to *destination* pixel coordinates (pixel centres at integers).
PyTorch: ``affine_grid(theta, (N, C, H_out, W_out))`` gives, for each *output* location in
normalised coordinates [-1, 1], the normalised *input* location to sample. Hence

    theta = (N_in · M̃⁻¹ · N_out⁻¹)[:2]

where ``M̃`` is M with a ``[0, 0, 1]`` row and ``N`` maps pixel to normalised coordinates under the
chosen ``align_corners`` convention (notebook 07 derives and checks it).
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["pixel_to_normalized", "cv2_to_theta", "theta_to_cv2"]


def _check_hw(hw, name: str) -> tuple[int, int]:
    if (
        not isinstance(hw, (tuple, list))
        or len(hw) != 2
        or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1 for v in hw)
    ):
        raise ValueError(f"{name} must be (height, width) with positive ints, got {hw!r}")
    return int(hw[0]), int(hw[1])


def pixel_to_normalized(hw: tuple[int, int], align_corners: bool) -> torch.Tensor:
    """3×3 (float64) matrix taking pixel coordinates (x, y, 1) to normalised ones.

    ``align_corners=False``: x_n = (2x + 1)/W − 1 (pixel *edges* at ±1).
    ``align_corners=True``:  x_n = 2x/(W − 1) − 1 (pixel *centres* of the corners at ±1).
    """
    h, w = _check_hw(hw, "hw")
    if not isinstance(align_corners, bool):
        raise TypeError("align_corners must be a bool")
    if align_corners:
        if h < 2 or w < 2:
            raise ValueError("align_corners=True needs height and width >= 2")
        sx, sy, tx, ty = 2 / (w - 1), 2 / (h - 1), -1.0, -1.0
    else:
        sx, sy, tx, ty = 2 / w, 2 / h, 1 / w - 1, 1 / h - 1
    return torch.tensor([[sx, 0.0, tx], [0.0, sy, ty], [0.0, 0.0, 1.0]], dtype=torch.float64)


def _as_3x3(m, name: str) -> torch.Tensor:
    t = torch.as_tensor(
        np.asarray(m, dtype=np.float64) if not isinstance(m, torch.Tensor) else m, dtype=torch.float64
    )
    if t.ndim not in (2, 3) or t.shape[-2:] not in ((2, 3), (3, 3)):
        raise ValueError(f"{name} must have shape (2, 3), (3, 3) or (B, 2, 3); got {tuple(t.shape)}")
    if not bool(torch.isfinite(t).all()):
        raise ValueError(f"{name} contains NaN or inf")
    if t.shape[-2:] == (2, 3):
        bottom = torch.tensor([0.0, 0.0, 1.0], dtype=torch.float64).expand(*t.shape[:-2], 1, 3)
        t = torch.cat([t, bottom], dim=-2)
    elif not torch.allclose(t[..., 2, :], torch.tensor([0.0, 0.0, 1.0], dtype=torch.float64)):
        raise ValueError(f"{name}'s last row must be [0, 0, 1] for an affine map")
    # Relative test: the ratio of the smallest to the largest singular value of the linear part does not
    # depend on the overall scale, so 1e-7·I is accepted while [[1, 2], [2, 4]] is not.
    sv = torch.linalg.svdvals(t[..., :2, :2])
    ratio = torch.where(
        sv[..., 0] > 0,
        sv[..., -1] / sv[..., 0].clamp_min(torch.finfo(torch.float64).tiny),
        torch.zeros_like(sv[..., 0]),
    )
    if bool((ratio < 1e-12).any()):
        raise ValueError(
            f"{name} is singular (smallest/largest singular value {ratio.min().item():.3g}): "
            "it has no inverse"
        )
    return t


def cv2_to_theta(
    M, in_hw: tuple[int, int], out_hw: tuple[int, int], align_corners: bool = False
) -> torch.Tensor:
    """theta (float64, shape (2, 3) or (B, 2, 3)) that makes ``grid_sample(affine_grid(theta))`` equal
    ``cv2.warpAffine(src, M, (out_w, out_h))`` (bilinear, same ``align_corners`` in both torch calls)."""
    Mt = _as_3x3(M, "M")
    n_in = pixel_to_normalized(_check_hw(in_hw, "in_hw"), align_corners)
    n_out = pixel_to_normalized(_check_hw(out_hw, "out_hw"), align_corners)
    return (n_in @ torch.linalg.inv(Mt) @ torch.linalg.inv(n_out))[..., :2, :]


def theta_to_cv2(
    theta, in_hw: tuple[int, int], out_hw: tuple[int, int], align_corners: bool = False
) -> np.ndarray:
    """Inverse of :func:`cv2_to_theta`: OpenCV's M (float64 ndarray, (2, 3) or (B, 2, 3))."""
    T = _as_3x3(theta, "theta")
    n_in = pixel_to_normalized(_check_hw(in_hw, "in_hw"), align_corners)
    n_out = pixel_to_normalized(_check_hw(out_hw, "out_hw"), align_corners)
    return torch.linalg.inv(torch.linalg.inv(n_in) @ T @ n_out)[..., :2, :].numpy()
