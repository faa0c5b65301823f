#!/usr/bin/env python3
"""Prints the golden values of lowering/interp/image_test.cc: bilinear and bicubic
image.resize2d of a 3x4 image, written from TVM's python/tvm/topi/image/resize.py.

    python3 lowering/interp/testdata/image_golden.py              # prints every case
    python3 lowering/interp/testdata/image_golden.py --check lowering/interp/image_test.cc

Standard library only, and nothing from the interpreter. The image is ((i * 7) % 11 - 5) / 4
for i = 0..11, as the test's Image() builds it. Following resize.py: an output coordinate maps
to an input one by the coordinate transformation mode; linear takes the two (four) neighbours
around floor(x), clamped to the border, and lerps A * (1 - t) + B * t along x, then along y;
cubic takes four neighbours per axis with Keys' weights for `alpha` (with exclude_outside the
weights of taps outside the image become zero and the rest are renormalised), along x, then
along y. Sums run left to right, in resize.py's order, so the printed doubles are bit-exact.

Each case prints as the std::vector<double> literal the test holds, after a comment naming
its TEST; `image_golden_test` (lowering/interp/BUILD) runs --check, which fails when the
test's values and these differ (testdata/golden.py says how they are compared). The
nearest-neighbour cases and the float16 one are worked by hand in the test.
"""

import math
import sys

import golden
from golden import Case, add_all

HEIGHT, WIDTH = 3, 4
IMAGE = [((i * 7) % 11 - 5) * 0.25 for i in range(HEIGHT * WIDTH)]


def input_coordinate(x, size, target, mode):
    """resize.py's get_inx: where output index `x` of `target` samples an axis of `size`."""
    scale = size / target
    if mode == "half_pixel":
        return (x + 0.5) * scale - 0.5
    if mode == "align_corners":
        return (size - 1) / (target - 1) * x
    if mode == "asymmetric":
        return scale * x
    if mode == "pytorch_half_pixel":
        return (x + 0.5) * scale - 0.5 if target > 1 else 0.0
    raise ValueError(mode)


def pixel(y, x):
    """The image at (y, x), clamped to the border."""
    y = max(min(y, HEIGHT - 1), 0)
    x = max(min(x, WIDTH - 1), 0)
    return IMAGE[y * WIDTH + x]


def lerp(a, b, t):
    return a * (1.0 - t) + b * t


def cubic_weights(t, alpha):
    t2 = t * t
    t3 = t * t * t
    return [
        alpha * (t3 - 2 * t2 + t),
        (alpha + 2) * t3 - (3 + alpha) * t2 + 1,
        -(alpha + 2) * t3 + (3 + 2 * alpha) * t2 - alpha * t,
        -alpha * t3 + alpha * t2,
    ]


def excluding_outside(weights, first, size):
    """Zero weights of taps first..first+3 outside [0, size), then make them sum to 1."""
    weights = [0.0 if not 0 <= first + i < size else w for i, w in enumerate(weights)]
    total = add_all(weights)
    return [w / total for w in weights]


def resize(oh, ow, method, mode, alpha=-0.5, exclude_outside=False):
    out = []
    for y in range(oh):
        in_y = input_coordinate(y, HEIGHT, oh, mode)
        for x in range(ow):
            in_x = input_coordinate(x, WIDTH, ow, mode)
            y0, x0 = math.floor(in_y), math.floor(in_x)
            fy, fx = in_y - y0, in_x - x0
            if method == "linear":
                top = lerp(pixel(y0, x0), pixel(y0, x0 + 1), fx)
                bottom = lerp(pixel(y0 + 1, x0), pixel(y0 + 1, x0 + 1), fx)
                out.append(lerp(top, bottom, fy))
                continue
            wx = cubic_weights(fx, alpha)
            wy = cubic_weights(fy, alpha)
            if exclude_outside:
                wx = excluding_outside(wx, x0 - 1, WIDTH)
                wy = excluding_outside(wy, y0 - 1, HEIGHT)
            rows = [add_all(pixel(y0 - 1 + j, x0 - 1 + i) * wx[i] for i in range(4))
                    for j in range(4)]
            out.append(add_all(rows[j] * wy[j] for j in range(4)))
    return out


def cases():
    return [
        Case("ResizeLinearTest.HalfPixelUpscale", "linear, half_pixel, 3x4 -> 5x6",
             resize(5, 6, "linear", "half_pixel")),
        Case("ResizeLinearTest.AlignCornersDownscale", "linear, align_corners, 3x4 -> 2x3",
             resize(2, 3, "linear", "align_corners")),
        Case("ResizeLinearTest.Asymmetric", "linear, asymmetric, 3x4 -> 4x3",
             resize(4, 3, "linear", "asymmetric")),
        Case("ResizeLinearTest.PytorchHalfPixelWithOneOutputRow",
             "linear, pytorch_half_pixel, 3x4 -> 1x3",
             resize(1, 3, "linear", "pytorch_half_pixel")),
        Case("ResizeCubicTest.HalfPixel", "cubic, half_pixel, 3x4 -> 4x5 (alpha -0.5)",
             resize(4, 5, "cubic", "half_pixel")),
        Case("ResizeCubicTest.AlphaAndExcludeOutside",
             "cubic, half_pixel, 3x4 -> 4x5, alpha -0.75, exclude_outside",
             resize(4, 5, "cubic", "half_pixel", alpha=-0.75, exclude_outside=True)),
    ]


if __name__ == "__main__":
    sys.exit(golden.main("lowering/interp/testdata/image_golden.py", cases(), sys.argv))
