import cv2
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from helpers.affine import cv2_to_theta, pixel_to_normalized, theta_to_cv2


def smooth_image(h=48, w=64):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return np.sin(xx / 7.0) + np.cos(yy / 5.0) + 0.01 * xx


def torch_warp(img, theta, out_hw, ac):
    t = torch.from_numpy(img)[None, None].double()
    grid = F.affine_grid(theta[None], (1, 1, *out_hw), align_corners=ac)
    return F.grid_sample(t, grid, mode="bilinear", padding_mode="zeros", align_corners=ac)[0, 0].numpy()


@pytest.mark.parametrize("ac", [False, True])
@pytest.mark.parametrize(
    "M, out_hw",
    [
        (cv2.getRotationMatrix2D((30.0, 20.0), 25, 0.9), (48, 64)),
        (np.array([[1.0, 0.0, 2.3], [0.0, 1.0, -1.7]]), (48, 64)),
        (np.array([[0.5, 0.0, 0.0], [0.0, 0.5, 0.0]]), (24, 32)),
    ],
)
def test_matches_opencv_on_the_interior(M, out_hw, ac):
    img = smooth_image()
    # float32: OpenCV interpolates float32 images exactly (float64 ones on a 1/32-pixel grid, see notebook 07)
    ref = cv2.warpAffine(
        img, M, (out_hw[1], out_hw[0]), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
    )
    got = torch_warp(img, cv2_to_theta(M, img.shape, out_hw, ac), out_hw, ac)
    inner = (slice(4, out_hw[0] - 4), slice(4, out_hw[1] - 4))
    src_ok = cv2.warpAffine(np.ones_like(img), M, (out_hw[1], out_hw[0]), borderValue=0) > 0.999
    mask = np.zeros_like(src_ok)
    mask[inner] = True
    mask &= src_ok
    assert mask.sum() > 100
    assert np.abs(got - ref)[mask].max() < 1e-4


def test_roundtrip_and_batch():
    M = np.stack([cv2.getRotationMatrix2D((10, 10), a, 1.1) for a in (0, 30, 60)])
    th = cv2_to_theta(M, (32, 32), (16, 24), True)
    assert th.shape == (3, 2, 3)
    np.testing.assert_allclose(theta_to_cv2(th, (32, 32), (16, 24), True), M, atol=1e-10)
    assert torch.allclose(cv2_to_theta(M[1], (32, 32), (16, 24), True), th[1])


def test_identity_is_identity():
    assert torch.allclose(cv2_to_theta(np.eye(3), (5, 7), (5, 7)), torch.eye(2, 3, dtype=torch.float64))
    n = pixel_to_normalized((4, 10), False)
    assert torch.allclose(
        n @ torch.tensor([-0.5, -0.5, 1.0], dtype=torch.float64),
        torch.tensor([-1.0, -1.0, 1.0], dtype=torch.float64),
    )


@pytest.mark.parametrize(
    "bad, match",
    [
        (np.zeros((2, 3)), "singular"),
        (np.ones((2, 2)), "shape"),
        (np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]]), "last row"),
        (np.array([[np.nan, 0, 0], [0, 1, 0]]), "NaN"),
    ],
)
def test_bad_matrices(bad, match):
    with pytest.raises(ValueError, match=match):
        cv2_to_theta(bad, (4, 4), (4, 4))


def test_singularity_is_relative_to_scale():
    tiny = 1e-7 * np.eye(2, 3)  # invertible, only small: determinant 1e-14
    np.testing.assert_allclose(
        theta_to_cv2(cv2_to_theta(tiny, (4, 4), (4, 4)), (4, 4), (4, 4)), tiny, atol=1e-15
    )
    with pytest.raises(ValueError, match="singular"):
        cv2_to_theta(np.array([[1.0, 0.0, 0.0], [0.0, 1e-13, 0.0]]), (4, 4), (4, 4))
    with pytest.raises(ValueError, match="singular"):  # one singular matrix in a batch is enough
        cv2_to_theta(np.stack([np.eye(2, 3), np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0]])]), (4, 4), (4, 4))


def test_bad_sizes_and_flags():
    with pytest.raises(ValueError, match="height, width"):
        cv2_to_theta(np.eye(3), (4, 0), (4, 4))
    with pytest.raises(ValueError, match=">= 2"):
        pixel_to_normalized((1, 4), True)
    with pytest.raises(TypeError, match="bool"):
        pixel_to_normalized((4, 4), 1)
